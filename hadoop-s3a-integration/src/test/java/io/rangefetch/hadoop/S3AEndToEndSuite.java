package io.rangefetch.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.StreamConfig;
import io.rangefetch.parquet.ParquetFormatPolicy;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3A with Rangefetch's stream factory on an S3 server through the shaping proxy, selected exactly as the README's
 * Hadoop section says (per bucket): parquet-java reading through {@code s3a://}, unbuffer and close, an object
 * overwritten mid-read, statistics, and a bad setting. Subclassed once per backend ({@link ProxiedS3A}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class S3AEndToEndSuite {
    private static final int KIB = 1024;

    private ProxiedS3A s3a;
    private S3Client s3;
    private Path localParquet;

    @BeforeAll
    void setUp(@TempDir Path directory) throws IOException {
        s3a = ProxiedS3A.of(getClass());
        s3 = S3Clients.sync(s3a.server());
        localParquet = ParquetRows.write(directory.resolve("rows.parquet"));
        s3.putObject(
                request -> request.bucket(ProxiedS3A.BUCKET).key("e2e/rows.parquet"),
                RequestBody.fromFile(localParquet));
    }

    @AfterAll
    void tearDown() {
        if (s3 != null) {
            s3.close();
        }
    }

    /** The README's settings, per bucket: the keys a user copies. */
    private Configuration rangefetchPerBucket() {
        Configuration conf = s3a.s3aConfiguration();
        String bucket = "fs.s3a.bucket." + ProxiedS3A.BUCKET + ".";
        conf.set(bucket + "input.stream.type", "custom");
        conf.set(bucket + "input.stream.custom.factory", "io.rangefetch.hadoop.RangefetchStreamFactory");
        conf.set(bucket + "rangefetch.cache.max-memory", "64MB");
        return conf;
    }

    @Test
    void parquetThroughS3aReadsTheLocalRecordsWithFewerRequestsThanTheClassicStreamAndNoUnreadColumn()
            throws IOException {
        List<String> expected = ParquetRows.readProjected(new LocalInputFile(localParquet), new Configuration());
        assertThat(expected).hasSize(ParquetRows.ROWS);

        Configuration classic = s3a.s3aConfiguration();
        classic.set("fs.s3a.input.stream.type", "classic");
        Requests classicLedger = readThroughS3a(classic, expected);
        Configuration rangefetch = rangefetchPerBucket();
        // a hedge sends a slow GET's range a second time by design (at most hedge.max-fraction of the GETs; a busy
        // machine slows some first bytes past the 30 ms floor on this 20 ms network): this test counts the bytes
        // the projection's own plan moves, and the slow-first-byte benchmark the hedges'
        rangefetch.set("fs.s3a.bucket." + ProxiedS3A.BUCKET + ".rangefetch.hedge.enabled", "false");
        Requests rangefetchLedger = readThroughS3a(rangefetch, expected);

        assertThat(rangefetchLedger.gets())
                .as("GETs, Rangefetch vs classic %s", classicLedger)
                .isLessThan(classicLedger.gets());
        assertThat(rangefetchLedger.heads())
                .as("HEADs from Rangefetch's streams")
                .isLessThanOrEqualTo(classicLedger.heads());
        System.out.printf(
                "projection through s3a:// on %s: classic %s, Rangefetch %s, file %d bytes%n",
                s3a, classicLedger, rangefetchLedger, Files.size(localParquet));
        // Classic reads the footer exactly, in two GETs (trailer, then footer); Rangefetch's one open fetch is
        // parquet.footer-precache-size of the tail (no footer seen yet in this factory), so the bytes past the
        // footer are the only ones it may fetch beyond classic's: no unread column chunk, no byte twice.
        long footerTail = ParquetRows.footerLength(localParquet) + 8L;
        long precachePastFooter = StreamConfig.defaults().get(ParquetFormatPolicy.FOOTER_PRECACHE_SIZE) - footerTail;
        assertThat(rangefetchLedger.bodyBytes() - precachePastFooter)
                .as("bytes, Rangefetch (less the precache past the footer) vs classic %s", classicLedger)
                .isLessThanOrEqualTo(classicLedger.bodyBytes());
    }

    /** Reads the projection through s3a:// with vectored IO on; returns what the proxy counted. */
    private Requests readThroughS3a(Configuration conf, List<String> expected) throws IOException {
        conf.setBoolean("parquet.hadoop.vectored.io.enabled", true);
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), conf)) {
            FileStatus status = fs.getFileStatus(new org.apache.hadoop.fs.Path("/e2e/rows.parquet"));
            s3a.proxy().ledger().reset();
            assertThat(ParquetRows.readProjected(HadoopInputFile.fromStatus(status, conf), conf))
                    .isEqualTo(expected);
            return Requests.of(s3a.proxy().ledger());
        }
    }

    @Test
    void unbufferFreesTheStreamAndReadsOnCloseTwiceIsHarmlessAndAReadAfterCloseFails() throws IOException {
        byte[] object = patterned(3 * 1024 * KIB, 7);
        put("e2e/unbuffer.bin", object);
        try (FileSystem fs =
                FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), rangefetchPerBucket())) {
            FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/e2e/unbuffer.bin"));
            assertThat(in.getWrappedStream()).isInstanceOf(RangefetchObjectInputStream.class);
            byte[] first = new byte[100_000];
            in.readFully(first);
            in.unbuffer();
            assertThat(in.getWrappedStream().toString()).contains("unbuffered");
            assertThat(in.getPos()).isEqualTo(100_000);
            byte[] next = new byte[100_000];
            in.readFully(next);
            assertThat(first).isEqualTo(Arrays.copyOfRange(object, 0, 100_000));
            assertThat(next).isEqualTo(Arrays.copyOfRange(object, 100_000, 200_000));

            IOStatistics statistics = ((RangefetchObjectInputStream) in.getWrappedStream()).getIOStatistics();
            assertThat(statistics.counters().get("rangefetch_get_requests")).isPositive();
            assertThat(statistics.counters().get("stream_read_bytes")).isEqualTo(200_000L);
            assertThat(statistics.counters().get("stream_read_unbuffered")).isEqualTo(1L);

            in.close();
            in.close();
            assertThatThrownBy(in::read).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> in.readFully(0, new byte[1])).isInstanceOf(IOException.class);
            // the closed stream's counts reached the file system's IOStatistics
            assertThat(((IOStatisticsSource) fs).getIOStatistics().counters().get("stream_read_bytes"))
                    .isEqualTo(200_000L);
        }
    }

    @Test
    void aVectoredReadsBytesCountOnTheCallersThreadWhereSparksTaskMetricsLookNotOnRangefetchs() throws Exception {
        byte[] object = patterned(4 * 1024 * KIB, 11);
        put("e2e/vectored-metrics.bin", object);
        try (FileSystem fs =
                FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), rangefetchPerBucket())) {
            FileSystem.Statistics statistics = FileSystem.getStatistics("s3a", fs.getClass());
            long before = statistics.getThreadStatistics().getBytesRead();
            List<FileRange> ranges = List.of(
                    FileRange.createFileRange(0, 70_000),
                    FileRange.createFileRange(1_000_000, 300_000),
                    FileRange.createFileRange(3_500_000, 12_345));
            try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/e2e/vectored-metrics.bin"))) {
                in.readVectored(ranges, ByteBuffer::allocate);
                for (FileRange range : ranges) {
                    ByteBuffer data = range.getData().get();
                    byte[] read = new byte[data.remaining()];
                    data.get(read);
                    assertThat(read)
                            .isEqualTo(Arrays.copyOfRange(
                                    object, (int) range.getOffset(), (int) range.getOffset() + range.getLength()));
                }
                // the ranges were fetched and completed on Rangefetch's threads; this thread's count has them all
                assertThat(statistics.getThreadStatistics().getBytesRead() - before)
                        .isEqualTo(382_345L);
                assertThat(((RangefetchObjectInputStream) in.getWrappedStream())
                                .getIOStatistics()
                                .counters()
                                .get("stream_read_bytes"))
                        .isEqualTo(382_345L);
            }
        }
    }

    @Test
    void aPositionedReadInFlightWhileTheStreamIsUnbufferedReturnsItsBytes() throws Exception {
        byte[] object = patterned(16 * 1024 * KIB, 13);
        put("e2e/unbuffer-race.bin", object);
        Duration faultDelay = s3a.proxy().faultFirstByteDelay();
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try (FileSystem fs =
                        FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), rangefetchPerBucket());
                FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/e2e/unbuffer-race.bin"))) {
            byte[] head = new byte[1000];
            in.readFully(0, head); // the stream knows its version now
            s3a.proxy().setFaultFirstByteDelay(Duration.ofMinutes(1));
            s3a.proxy().failNext(Fault.FIRST_BYTE_DELAY);
            long at = 10L * 1024 * KIB;
            Future<byte[]> inFlight = reader.submit(() -> {
                byte[] bytes = new byte[100_000];
                in.readFully(at, bytes);
                return bytes;
            });
            assertThat(s3a.proxy().awaitHeldHeads(1, Duration.ofSeconds(30)))
                    .as("the read's GET is held")
                    .isTrue();
            in.unbuffer();
            s3a.proxy().setFaultFirstByteDelay(Duration.ZERO);
            assertThat(inFlight.get(60, TimeUnit.SECONDS))
                    .isEqualTo(Arrays.copyOfRange(object, (int) at, (int) at + 100_000));
            byte[] after = new byte[1000];
            in.readFully(at + 200_000, after);
            assertThat(after).isEqualTo(Arrays.copyOfRange(object, (int) at + 200_000, (int) at + 201_000));
            assertThat(head).isEqualTo(Arrays.copyOfRange(object, 0, 1000));
        } finally {
            s3a.proxy().setFaultFirstByteDelay(faultDelay);
            reader.shutdownNow();
            assertThat(reader.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * S3A's client retries by its own settings ({@code fs.s3a.attempts.maximum} and the SDK's defaults, as a user
     * leaves them); through the factory, every GET Rangefetch sends makes one attempt all the same: the proxy serves
     * one 503 for each retry Rangefetch counts, and no attempt it did not make.
     */
    @Test
    void everyGetThroughS3asClientMakesOneAttemptWhateverItsOwnRetrySettings() throws IOException {
        // past read.small-object-size, so the first read does not fetch it whole
        byte[] object = patterned(16 * 1024 * KIB, 17);
        put("e2e/throttled.bin", object);
        try (FileSystem fs =
                        FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), rangefetchPerBucket());
                FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/e2e/throttled.bin"))) {
            byte[] head = new byte[1000];
            in.readFully(0, head); // the stream knows its version now
            ProxyLedger ledger = s3a.proxy().ledger();
            ledger.reset();
            for (int i = 0; i < 3; i++) {
                s3a.proxy().failNext(Fault.SLOW_DOWN_503);
            }
            long at = 10L * 1024 * KIB;
            byte[] bytes = new byte[100_000];
            in.readFully(at, bytes);
            assertThat(bytes).isEqualTo(Arrays.copyOfRange(object, (int) at, (int) at + bytes.length));
            assertThat(ledger.requests()).extracting(ProxiedRequest::status).containsExactly(503, 503, 503, 206);
            IOStatistics statistics = ((RangefetchObjectInputStream) in.getWrappedStream()).getIOStatistics();
            assertThat(statistics.counters().get("rangefetch_retries"))
                    .as("Rangefetch's retries")
                    .isEqualTo(3L);
        }
    }

    @Test
    void anObjectOverwrittenMidReadFailsWithRemoteFileChangedExceptionAndNeverMixedBytes() throws IOException {
        byte[] original = patterned(16 * 1024 * KIB, 11);
        put("e2e/overwritten.bin", original);
        try (FileSystem fs =
                        FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), rangefetchPerBucket());
                FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/e2e/overwritten.bin"))) {
            byte[] head = new byte[1000];
            in.readFully(head);
            assertThat(head).isEqualTo(Arrays.copyOfRange(original, 0, 1000));

            put("e2e/overwritten.bin", patterned(original.length, 12));

            byte[] tail = new byte[1000];
            assertThatThrownBy(() -> in.readFully(original.length - 1000, tail))
                    .isInstanceOf(RemoteFileChangedException.class)
                    .hasMessageContaining("overwritten.bin");
            assertThat(tail).as("no byte of the new version was handed out").containsOnly((byte) 0);
        }
    }

    @Test
    void aBadSettingForTheBucketFailsInitializationNamingTheKey() {
        Configuration conf = rangefetchPerBucket();
        conf.set("fs.s3a.bucket." + ProxiedS3A.BUCKET + ".rangefetch.cache.max-memory", "lots");
        assertThatThrownBy(() -> FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), conf)
                        .close())
                .hasStackTraceContaining("fs.s3a.rangefetch.cache.max-memory=lots");
    }

    private void put(String key, byte[] bytes) {
        s3.putObject(request -> request.bucket(ProxiedS3A.BUCKET).key(key), RequestBody.fromBytes(bytes));
    }

    /** What the proxy counted for one read, copied off its ledger before the next read resets it. */
    private record Requests(long gets, long heads, long bodyBytes) {
        static Requests of(ProxyLedger ledger) {
            return new Requests(ledger.gets(), ledger.heads(), ledger.responseBodyBytes());
        }
    }

    private static byte[] patterned(int size, long seed) {
        byte[] bytes = new byte[size];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }
}
