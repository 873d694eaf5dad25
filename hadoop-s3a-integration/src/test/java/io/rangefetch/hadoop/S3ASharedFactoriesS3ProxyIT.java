package io.rangefetch.hadoop;

import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.THROTTLE_MAX_CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.SharedFactories;
import io.rangefetch.StreamFactory;
import io.rangefetch.testing.server.RangefetchThreads;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.WeakReference;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.service.CompositeService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3A with Hadoop's file system cache off ({@code fs.s3a.impl.disable.cache=true}), as engines run it when they make a
 * file system per task: fifty file systems read through one Rangefetch factory, one budget and one pool, and
 * leave no thread once closed or collected. File systems with other settings get a factory of their own.
 */
class S3ASharedFactoriesS3ProxyIT {
    private static final String BUCKET = "shared-factories";
    private static final int OBJECTS = 6;
    private static final int OBJECT_SIZE = 1024 * 1024 + 77;
    private static final long BUDGET = 3L * 1024 * 1024;
    private static final byte[][] DATA = new byte[OBJECTS][];
    private static final Duration COLLECTION_LIMIT = Duration.ofSeconds(60);

    private static S3ProxyServer server;
    private static ExecutorService readers;

    @BeforeAll
    static void start() throws Exception {
        server = S3ProxyServer.start();
        server.createBucket(BUCKET);
        Random random = new Random(31);
        try (S3Client client = S3Clients.sync(server)) {
            for (int i = 0; i < OBJECTS; i++) {
                DATA[i] = new byte[OBJECT_SIZE];
                random.nextBytes(DATA[i]);
                int index = i;
                client.putObject(request -> request.bucket(BUCKET).key(key(index)), RequestBody.fromBytes(DATA[i]));
            }
        }
        readers = Executors.newFixedThreadPool(8, runnable -> new Thread(runnable, "fs-reader"));
    }

    @AfterAll
    static void stop() {
        if (readers != null) {
            readers.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    /** Factories earlier tests left lingering close now, with their threads, so counts and threads are this test's. */
    @BeforeEach
    void closeLingering() {
        SharedFactories.closeIdle();
    }

    @Test
    void fileSystemsWithTheCacheOffReadThroughOneFactoryAndLeaveNoThreadWhenClosed() throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        int factoriesBefore = SharedFactories.openCount();
        Configuration conf = configuration(BUDGET);
        List<S3AFileSystem> fileSystems = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fileSystems.add((S3AFileSystem) FileSystem.get(URI.create("s3a://" + BUCKET + "/"), conf));
        }
        assertThat(fileSystems.get(0)).isNotSameAs(fileSystems.get(1)); // the cache is off
        readThroughAll(fileSystems.subList(0, 10));
        int threadsAfterFew = RangefetchThreads.live().size();
        readThroughAll(fileSystems);
        readThroughAll(fileSystems);

        StreamFactory shared = rangefetchOf(fileSystems.get(0));
        for (S3AFileSystem fs : fileSystems) {
            assertThat(rangefetchOf(fs)).isSameAs(shared);
        }
        assertThat(SharedFactories.openCount()).isEqualTo(factoriesBefore + 1);
        System.out.printf(
                "S3A file systems (cache off): rangefetch threads after 10 read %d, after 50 %d; open"
                        + " factories %d; cache peak %d of %d bytes%n",
                threadsAfterFew,
                RangefetchThreads.live().size(),
                SharedFactories.openCount() - factoriesBefore,
                shared.peakCacheMemoryBytes(),
                BUDGET);
        assertThat(RangefetchThreads.owningFactories()).hasSize(1);
        int inFlight = Math.max(
                shared.config().get(FETCH_MAX_CONCURRENCY), shared.config().get(THROTTLE_MAX_CONCURRENCY));
        assertThat(RangefetchThreads.live().size())
                .as("rangefetch threads after 10 file systems: %d", threadsAfterFew)
                .isLessThanOrEqualTo(Math.max(threadsAfterFew, 3 * inFlight + 2));
        assertThat(shared.peakCacheMemoryBytes()).isPositive().isLessThanOrEqualTo(BUDGET);

        // other settings: a factory of their own, closed with its file system
        try (S3AFileSystem other =
                (S3AFileSystem) FileSystem.get(URI.create("s3a://" + BUCKET + "/"), configuration(2 * BUDGET))) {
            readThroughAll(List.of(other));
            assertThat(rangefetchOf(other)).isNotSameAs(shared);
            assertThat(SharedFactories.openCount()).isEqualTo(factoriesBefore + 2);
        }
        assertThat(SharedFactories.openCount()).isEqualTo(factoriesBefore + 1);

        for (int i = fileSystems.size() - 1; i >= 1; i--) {
            fileSystems.get(i).close();
        }
        readThroughAll(fileSystems.subList(0, 1)); // the last file system still reads through the shared factory
        fileSystems.get(0).close();
        assertThat(SharedFactories.openCount()).isEqualTo(factoriesBefore);
        threads.assertNoNewThreads("rangefetch-", Duration.ofSeconds(10));
    }

    @Test
    void fileSystemsDroppedWithoutCloseGiveBackTheFactoryWhenCollectedButNotWhileAStreamOfThemIsOpen()
            throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        int factoriesBefore = SharedFactories.openCount();
        Configuration conf = configuration(BUDGET);

        // one file system stays reachable only through a stream it opened
        S3AFileSystem streaming = (S3AFileSystem) FileSystem.get(URI.create("s3a://" + BUCKET + "/"), conf);
        FSDataInputStream stream = streaming.open(new Path("s3a://" + BUCKET + "/" + key(0)));
        byte[] head = new byte[1000];
        stream.readFully(0, head);
        WeakReference<S3AFileSystem> streamingRef = new WeakReference<>(streaming);
        streaming = null;

        List<S3AFileSystem> fileSystems = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            fileSystems.add((S3AFileSystem) FileSystem.get(URI.create("s3a://" + BUCKET + "/"), conf));
        }
        readThroughAll(fileSystems);
        List<WeakReference<S3AFileSystem>> dropped = new ArrayList<>();
        fileSystems.forEach(fs -> dropped.add(new WeakReference<>(fs)));
        fileSystems = null;

        RangefetchThreads.collectUntil(
                "the dropped file systems",
                COLLECTION_LIMIT,
                () -> dropped.stream().allMatch(ref -> ref.get() == null));
        assertThat(streamingRef.get()).isNotNull();
        assertThat(SharedFactories.openCount()).isEqualTo(factoriesBefore + 1);
        byte[] rest = new byte[OBJECT_SIZE - head.length];
        stream.readFully(head.length, rest);
        assertThat(rest).isEqualTo(Arrays.copyOfRange(DATA[0], head.length, OBJECT_SIZE));

        stream.close();
        stream = null;
        RangefetchThreads.collectUntil(
                "the file system whose stream closed",
                COLLECTION_LIMIT,
                () -> SharedFactories.awaitOpenCount(factoriesBefore, Duration.ofMillis(100)));
        // this test's factory is closed; the collections it forced may have let a factory another test class dropped
        // without closing start to linger (with its linger timer's thread): that one is not this test's to wait for
        SharedFactories.closeIdle();
        threads.assertNoNewThreads("rangefetch-", Duration.ofSeconds(10));
    }

    private static Configuration configuration(long budget) {
        Configuration conf = ProxiedS3A.withRangefetch(ProxiedS3A.s3aConfiguration(server));
        conf.setBoolean("fs.s3a.impl.disable.cache", true);
        conf.set(RangefetchStreamFactory.CONFIG_PREFIX + "cache.max-memory", String.valueOf(budget));
        // no linger: the last file system's close closes the factory, which these tests check
        conf.set(RangefetchStreamFactory.CONFIG_PREFIX + "factory.linger", "0s");
        return conf;
    }

    private static String key(int index) {
        return "data/part-" + index + ".parquet";
    }

    /** Every file system reads a whole object (which one turns with the file system), all at once. */
    private static void readThroughAll(List<S3AFileSystem> fileSystems) throws Exception {
        List<Future<?>> reads = new ArrayList<>();
        for (int i = 0; i < fileSystems.size(); i++) {
            S3AFileSystem fs = fileSystems.get(i);
            int object = i % OBJECTS;
            reads.add(readers.submit(() -> {
                byte[] read = new byte[OBJECT_SIZE];
                try (FSDataInputStream stream = fs.open(new Path("s3a://" + BUCKET + "/" + key(object)))) {
                    stream.readFully(0, read);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                assertThat(read).isEqualTo(DATA[object]);
                return null;
            }));
        }
        for (Future<?> read : reads) {
            read.get();
        }
    }

    /** The Rangefetch factory S3A made: a service of S3A's store, found through Hadoop's public API. */
    private static StreamFactory rangefetchOf(S3AFileSystem fs) {
        CompositeService store = (CompositeService) fs.getS3AInternals().getStore();
        return store.getServices().stream()
                .filter(RangefetchStreamFactory.class::isInstance)
                .map(service -> ((RangefetchStreamFactory) service).rangefetch())
                .findFirst()
                .orElseThrow();
    }
}
