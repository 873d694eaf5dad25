package io.rangefetch.iceberg;

import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.THROTTLE_MAX_CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.rangefetch.SharedFactories;
import io.rangefetch.StreamFactory;
import io.rangefetch.testing.server.RangefetchThreads;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objenesis.strategy.StdInstantiatorStrategy;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An executor's life with one FileIO: copies deserialized by the hundred (Java and Kryo, as Iceberg ships a FileIO to
 * each task) read through one shared factory, one budget and one pool, and leave no thread once closed or collected.
 * S3Proxy in-process serves the reads; every read's bytes are checked.
 */
class SharedClientsTest {
    private static final String BUCKET = "shared-factories";
    private static final int OBJECTS = 8;
    private static final int OBJECT_SIZE = 1024 * 1024 + 333;
    private static final long BUDGET = 4L * 1024 * 1024; // half the data: the budget binds
    private static final byte[][] DATA = new byte[OBJECTS][];
    private static final Duration COLLECTION_LIMIT = Duration.ofSeconds(60);

    private static S3ProxyServer server;
    private static ExecutorService readers;

    @BeforeAll
    static void start() throws Exception {
        server = S3ProxyServer.start();
        server.createBucket(BUCKET);
        Random random = new Random(23);
        try (S3Client client = S3Clients.sync(server)) {
            for (int i = 0; i < OBJECTS; i++) {
                DATA[i] = new byte[OBJECT_SIZE];
                random.nextBytes(DATA[i]);
                int index = i;
                client.putObject(request -> request.bucket(BUCKET).key(key(index)), RequestBody.fromBytes(DATA[i]));
            }
        }
        readers = Executors.newFixedThreadPool(8, runnable -> new Thread(runnable, "copy-reader"));
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
    void hundredsOfCopiesReadThroughOneFactoryWithFlatThreadsAndBytesAndLeaveNoThreadWhenClosed() throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        int holdersBefore = SharedFactories.openCount();
        RangefetchS3FileIO original = original();
        byte[] javaForm = javaBytes(original);
        byte[] kryoForm = kryoBytes(original);

        List<RangefetchS3FileIO> copies = new ArrayList<>();
        copies.add(original);
        addCopies(copies, javaForm, kryoForm, 10);
        readThroughAll(copies);
        int threadsAfterFew = RangefetchThreads.live().size();
        Set<String> factoriesAfterFew = RangefetchThreads.owningFactories();

        addCopies(copies, javaForm, kryoForm, 200); // 400 more: 200 by Java serialization, 200 by Kryo
        readThroughAll(copies);
        readThroughAll(copies);

        assertThat(copies).hasSize(421);
        StreamFactory shared = original.factories().get(0);
        for (RangefetchS3FileIO copy : copies) {
            assertThat(copy.factories()).containsExactly(shared);
        }
        assertThat(SharedFactories.openCount()).isEqualTo(holdersBefore + 1);
        // one factory's threads, however many copies read: not one pool per copy
        assertThat(RangefetchThreads.owningFactories())
                .isEqualTo(factoriesAfterFew)
                .hasSize(1);
        int threadsAfterMany = RangefetchThreads.live().size();
        System.out.printf(
                "FileIO copies: rangefetch threads after 11 copies read %d, after 421 %d; open factories %d;"
                        + " cache peak %d of %d bytes%n",
                threadsAfterFew,
                threadsAfterMany,
                SharedFactories.openCount() - holdersBefore,
                original.peakCacheMemoryBytes(),
                BUDGET);
        assertThat(threadsAfterMany)
                .as("rangefetch threads after 11 copies: %d; after 421: %d", threadsAfterFew, threadsAfterMany)
                .isLessThanOrEqualTo(Math.max(threadsAfterFew, threadCeiling(shared)));
        // one budget: the 421 copies' reads never held more than one cache's worth
        assertThat(original.peakCacheMemoryBytes()).isPositive().isLessThanOrEqualTo(BUDGET);
        assertThat(shared.statistics().toString()).isNotEmpty();

        // copies closing one by one leave the factory to the rest; the last one closes it
        for (int i = copies.size() - 1; i >= 1; i--) {
            copies.get(i).close();
        }
        assertThat(SharedFactories.openCount()).isEqualTo(holdersBefore + 1);
        readThroughAll(List.of(original));
        original.close();
        assertThat(SharedFactories.openCount()).isEqualTo(holdersBefore);
        threads.assertNoNewThreads("rangefetch-", Duration.ofSeconds(10));
    }

    @Test
    void copiesDroppedWithoutCloseGiveBackTheFactoryWhenCollectedButNotWhileAStreamOfThemIsOpen() throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        int holdersBefore = SharedFactories.openCount();
        RangefetchS3FileIO original = original();
        byte[] javaForm = javaBytes(original);
        byte[] kryoForm = kryoBytes(original);

        // one copy stays reachable only through a stream it opened
        RangefetchS3FileIO streaming = javaCopy(javaForm);
        SeekableInputStream stream =
                streaming.newInputFile(location(0), OBJECT_SIZE).newStream();
        byte[] head = new byte[1000];
        stream.read(head, 0, head.length);
        WeakReference<RangefetchS3FileIO> streamingRef = new WeakReference<>(streaming);
        streaming = null;

        List<RangefetchS3FileIO> copies = new ArrayList<>();
        addCopies(copies, javaForm, kryoForm, 50);
        readThroughAll(copies);
        List<WeakReference<RangefetchS3FileIO>> dropped = new ArrayList<>();
        copies.forEach(copy -> dropped.add(new WeakReference<>(copy)));
        dropped.add(new WeakReference<>(original));
        copies = null;
        original = null;

        RangefetchThreads.collectUntil(
                "the dropped copies", COLLECTION_LIMIT, () -> dropped.stream().allMatch(ref -> ref.get() == null));
        // the dropped copies were collected, the one behind the open stream was not, and its stream reads on
        assertThat(streamingRef.get()).isNotNull();
        assertThat(SharedFactories.openCount()).isEqualTo(holdersBefore + 1);
        byte[] rest = new byte[OBJECT_SIZE - head.length];
        ((RangeReadable) stream).readFully(head.length, rest, 0, rest.length);
        assertThat(rest).isEqualTo(Arrays.copyOfRange(DATA[0], head.length, OBJECT_SIZE));

        stream.close();
        stream = null;
        RangefetchThreads.collectUntil(
                "the copy whose stream closed",
                COLLECTION_LIMIT,
                () -> SharedFactories.awaitOpenCount(holdersBefore, Duration.ofMillis(100)));
        assertThat(streamingRef.get()).isNull();
        threads.assertNoNewThreads("rangefetch-", Duration.ofSeconds(10));
    }

    /** A FileIO whose shared factory closes with its last copy: no linger, so the test sees the close. */
    private static RangefetchS3FileIO original() {
        return original("0s");
    }

    private static RangefetchS3FileIO original(String linger) {
        RangefetchS3FileIO io = new RangefetchS3FileIO(
                new LocalS3Client(server.endpoint().toString(), server.accessKey(), server.secretKey()));
        io.initialize(Map.of(
                "rangefetch.cache.max-memory",
                String.valueOf(BUDGET),
                "rangefetch.read.min-request-size",
                "64KiB",
                "rangefetch.factory.linger",
                linger));
        return io;
    }

    @Test
    void anExecutorKeepsOneWarmFactoryAcrossQueriesWhoseCopiesAllClosedBetween() throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        int holdersBefore = SharedFactories.openCount();
        RangefetchS3FileIO original = original("10m");
        byte[] javaForm = javaBytes(original);
        byte[] kryoForm = kryoBytes(original);
        StreamFactory first = null;
        for (int query = 0; query < 5; query++) {
            // a query: its tasks' copies read, then all of them close before the next query deserializes its own
            List<RangefetchS3FileIO> copies = new ArrayList<>();
            addCopies(copies, javaForm, kryoForm, 3);
            readThroughAll(copies);
            StreamFactory factory = copies.get(0).factories().get(0);
            if (first == null) {
                first = factory;
            }
            assertThat(factory)
                    .as("query %d reads through the first query's factory", query)
                    .isSameAs(first);
            copies.forEach(RangefetchS3FileIO::close);
            assertThat(SharedFactories.openCount()).as("lingering").isEqualTo(holdersBefore + 1);
        }
        assertThat(first.statistics().cacheHits())
                .as("later queries were served from the warm cache")
                .isPositive();
        original.close();
        SharedFactories.closeIdle();
        assertThat(SharedFactories.openCount()).isEqualTo(holdersBefore);
        threads.assertNoNewThreads("rangefetch-", Duration.ofSeconds(10));
    }

    private static String key(int index) {
        return "table/data/part-" + index + ".parquet";
    }

    private static String location(int index) {
        return "s3://" + BUCKET + "/" + key(index);
    }

    /** Adds {@code each} copies deserialized from each form. */
    private static void addCopies(List<RangefetchS3FileIO> copies, byte[] javaForm, byte[] kryoForm, int each) {
        for (int i = 0; i < each; i++) {
            copies.add(javaCopy(javaForm));
            copies.add(kryoCopy(kryoForm));
        }
    }

    /** Every copy reads a whole object (which one turns with the copy) on the reader threads, all at once. */
    private static void readThroughAll(List<RangefetchS3FileIO> copies) throws Exception {
        List<Future<?>> reads = new ArrayList<>();
        for (int i = 0; i < copies.size(); i++) {
            RangefetchS3FileIO copy = copies.get(i);
            int object = i % OBJECTS;
            reads.add(readers.submit(() -> {
                InputFile file = copy.newInputFile(location(object), OBJECT_SIZE);
                byte[] read = new byte[OBJECT_SIZE];
                try (SeekableInputStream stream = file.newStream()) {
                    ((RangeReadable) stream).readFully(0, read, 0, read.length);
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

    /** Fetch and exchange threads for each request in flight, a watchdog and a backoff timer: one factory's most. */
    private static int threadCeiling(StreamFactory factory) {
        int inFlight = Math.max(
                factory.config().get(FETCH_MAX_CONCURRENCY), factory.config().get(THROTTLE_MAX_CONCURRENCY));
        return 3 * inFlight + 2;
    }

    private static byte[] javaBytes(RangefetchS3FileIO io) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(io);
        }
        return bytes.toByteArray();
    }

    private static RangefetchS3FileIO javaCopy(byte[] form) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(form))) {
            return (RangefetchS3FileIO) in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Kryo kryo() {
        // as Iceberg's own Kryo tests configure it: no registration, Java's instantiation without constructors
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(false);
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        return kryo;
    }

    private static byte[] kryoBytes(RangefetchS3FileIO io) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Output out = new Output(bytes)) {
            kryo().writeClassAndObject(out, io);
        }
        return bytes.toByteArray();
    }

    private static RangefetchS3FileIO kryoCopy(byte[] form) {
        try (Input in = new Input(form)) {
            return (RangefetchS3FileIO) kryo().readClassAndObject(in);
        }
    }
}
