package io.rangefetch.benchmarks.readers;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The runner's readers against real S3 servers on 127.0.0.1 (S3Proxy in this JVM always, MinIO when its binary
 * is found): the runner's wrappers of the other streams (Iceberg's FileIOs, S3A's streams, the analytics
 * accelerator) return the object's bytes for streaming, positioned and vectored reads, and a Parquet file read
 * through their {@code parquetFile} with a projection gives the values written; closing any reader's session,
 * Rangefetch's included, leaves none of the threads it started running.
 *
 * <p>The byte checks leave out the readers of Rangefetch's own stream factory: what its streams return is
 * StreamSuite's, VectoredReadSuite's and ParquetReadSuite's to check, on the same servers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadersIT {

    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final String BUCKET = "readers-it";
    private static final String OBJECT_KEY = "readers-it/object.bin";
    // the suffix is how the analytics accelerator recognises Parquet
    private static final String PARQUET_KEY = "readers-it/table.parquet";
    private static final int PARQUET_ROWS = 30_000;
    private static final MessageType PARQUET_SCHEMA = MessageTypeParser.parseMessageType(
            "message row { required int64 id; required binary name (UTF8); required double score; }");
    // id and score: two column chunks with a gap between them in every row group
    private static final MessageType PROJECTION =
            MessageTypeParser.parseMessageType("message row { required int64 id; required double score; }");
    private static final Duration THREAD_GRACE = Duration.ofSeconds(15);
    // alive for the JVM's lifetime by design, or not the readers' own
    private static final List<String> SHARED_THREAD_PREFIXES = List.of(
            S3ProxyServer.THREAD_NAME_PREFIX, // the server under test
            "AwsEventLoop", // the CRT's static event loop
            "ForkJoinPool.commonPool", // the JVM's common pool, which CompletableFuture callbacks may use
            "org.apache.hadoop.fs.FileSystem$Statistics$StatisticsDataReferenceCleaner", // static in Hadoop
            "Keep-Alive-Timer", // the JDK's HTTP keep-alive cache
            "response-input-stream-timeout-scheduler", // the SDK's static one, idle threads end after 60 s
            "FailsafeDelayScheduler", // Failsafe's static scheduler (in the analytics accelerator)
            "MutableQuantiles", // Hadoop metrics' static scheduler, which S3A's statistics start
            // java.lang.ref.Cleaner's: one for the JVM, giving back the shared factory of a FileIO or file system
            // collected without being closed (SharedFactories)
            "Cleaner-",
            // the SDK's Apache client reaper runs while any client is open, and Iceberg 1.12 keeps its Apache
            // clients in a JVM-wide cache that the S3 clients it builds never release
            "idle-connection-reaper");

    /** The servers a reader is tested against. */
    enum Backend {
        S3PROXY,
        MINIO
    }

    private final Map<Backend, S3Server> servers = new EnumMap<>(Backend.class);
    private final Map<Backend, String> objectEtags = new EnumMap<>(Backend.class);
    private final Map<Backend, String> parquetEtags = new EnumMap<>(Backend.class);
    private final Map<Backend, Long> parquetLengths = new EnumMap<>(Backend.class);
    private byte[] object;

    @BeforeAll
    void startServersAndUpload(@TempDir Path temp) throws Exception {
        object = patterned(13 * MIB + 4321, 7);
        Path parquet = writeParquet(temp.resolve("table.parquet"));
        byte[] parquetBytes = Files.readAllBytes(parquet);
        for (Backend backend : backends()) {
            S3Server server = backend == Backend.MINIO ? MinioServer.start() : S3ProxyServer.start();
            servers.put(backend, server);
            server.createBucket(BUCKET);
            try (S3Client s3 = S3Clients.sync(server)) {
                objectEtags.put(backend, put(s3, OBJECT_KEY, object));
                parquetEtags.put(backend, put(s3, PARQUET_KEY, parquetBytes));
            }
            parquetLengths.put(backend, (long) parquetBytes.length);
        }
    }

    @AfterAll
    void stopServers() {
        servers.values().forEach(S3Server::close);
    }

    /** The readers whose wrapper of another stream is the runner's own code. */
    Stream<Arguments> readers() {
        return backends().stream()
                .flatMap(backend -> Readers.all().stream()
                        .filter(reader -> !reader.isRangefetch())
                        .map(reader -> Arguments.of(backend, reader)));
    }

    Stream<Arguments> rangefetchReaders() {
        return backends().stream()
                .flatMap(backend -> Readers.all().stream()
                        .filter(ReaderUnderTest::isRangefetch)
                        .map(reader -> Arguments.of(backend, reader)));
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("rangefetchReaders")
    void aRangefetchSessionLeavesNoThreadsWhenClosed(Backend backend, ReaderUnderTest reader) throws Exception {
        withSession(backend, reader, session -> {
            try (BenchmarkStream stream = session.open(OBJECT_KEY, object.length)) {
                assertThat(readToEnd(stream, 64 * KIB)).hasSize(object.length);
            }
        });
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("readers")
    void aStreamingReadWithSeeksReturnsTheObjectsBytes(Backend backend, ReaderUnderTest reader) throws Exception {
        withSession(backend, reader, session -> {
            try (BenchmarkStream stream = session.open(OBJECT_KEY, object.length)) {
                byte[] whole = readToEnd(stream, 64 * KIB);
                assertThat(whole).isEqualTo(object);

                // backward, then forward, then back to the start
                long[] positions = {object.length - 300 * KIB, 2 * MIB + 17, 9 * MIB, 12 * MIB + 5, 0};
                byte[] buffer = new byte[200 * KIB];
                for (long position : positions) {
                    stream.seek(position);
                    int length = (int) Math.min(buffer.length, object.length - position);
                    readFully(stream, buffer, length);
                    assertThat(Arrays.copyOf(buffer, length))
                            .as("at %d", position)
                            .isEqualTo(slice(position, length));
                }
            }
        });
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("readers")
    void positionedReadsReturnTheObjectsBytes(Backend backend, ReaderUnderTest reader) throws Exception {
        withSession(backend, reader, session -> {
            Optional<String> etag = Optional.of(objectEtags.get(backend));
            try (BenchmarkStream stream = session.open(OBJECT_KEY, object.length, etag)) {
                long[] positions = {0, 5 * MIB + 3, MIB, object.length - 1000, 8 * MIB - 10};
                int[] lengths = {1, 700 * KIB, 64 * KIB, 1000, 2 * MIB};
                for (int i = 0; i < positions.length; i++) {
                    byte[] buffer = new byte[lengths[i] + 10];
                    stream.readFully(positions[i], buffer, 10, lengths[i]);
                    assertThat(Arrays.copyOfRange(buffer, 10, buffer.length))
                            .as("at %d", positions[i])
                            .isEqualTo(slice(positions[i], lengths[i]));
                }
                // a positioned read leaves the stream's position alone
                byte[] first = new byte[4 * KIB];
                readFully(stream, first, first.length);
                assertThat(first).isEqualTo(slice(0, first.length));
            }
        });
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("readers")
    void aVectoredReadReturnsEveryRangesBytes(Backend backend, ReaderUnderTest reader) throws Exception {
        withSession(backend, reader, session -> {
            List<Span> ranges = List.of(
                    new Span(0, 1000),
                    new Span(MIB, 256 * KIB),
                    new Span(5 * MIB + 7, MIB),
                    new Span(11 * MIB, 3),
                    new Span(object.length - 4096, 4096));
            try (BenchmarkStream stream = session.open(OBJECT_KEY, object.length)) {
                List<CompletableFuture<ByteBuffer>> results = stream.readVectored(ranges, ByteBuffer::allocate);
                assertThat(results).hasSameSizeAs(ranges);
                for (int i = 0; i < ranges.size(); i++) {
                    // a bound on a hang, not on speed
                    ByteBuffer data = results.get(i).get(60, TimeUnit.SECONDS);
                    byte[] bytes = new byte[data.remaining()];
                    data.get(bytes);
                    assertThat(bytes)
                            .as("range %s", ranges.get(i))
                            .isEqualTo(
                                    slice(ranges.get(i).offset(), ranges.get(i).length()));
                }
            }
        });
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("readers")
    void aParquetFileReadWithAProjectionGivesTheWrittenValues(Backend backend, ReaderUnderTest reader)
            throws Exception {
        withSession(backend, reader, session -> {
            long length = parquetLengths.get(backend);
            InputFile file = session.parquetFile(PARQUET_KEY, length, Optional.of(parquetEtags.get(backend)));
            assertThat(file.getLength()).isEqualTo(length);
            int rows = 0;
            try (ParquetReader<Group> parquet = new GroupReaderBuilder(file)
                    .set(ReadSupport.PARQUET_READ_SCHEMA, PROJECTION.toString())
                    .build()) {
                for (Group row = parquet.read(); row != null; row = parquet.read()) {
                    assertThat(row.getType().getFieldCount()).isEqualTo(2);
                    assertThat(row.getLong("id", 0)).isEqualTo(rows);
                    assertThat(row.getDouble("score", 0)).isEqualTo(score(rows));
                    rows++;
                }
            }
            assertThat(rows).isEqualTo(PARQUET_ROWS);
        });
    }

    /** Opens a session, runs {@code body}, closes it and checks that no thread it started is left. */
    private void withSession(Backend backend, ReaderUnderTest reader, SessionBody body) throws Exception {
        S3Server server = servers.get(backend);
        S3Target target =
                new S3Target(server.endpoint(), server.region(), BUCKET, server.accessKey(), server.secretKey(), true);
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        try (ReaderSession session = reader.openSession(target)) {
            body.run(session);
        }
        assertNoThreadsLeft(threads, reader);
    }

    @FunctionalInterface
    private interface SessionBody {
        void run(ReaderSession session) throws Exception;
    }

    private static void assertNoThreadsLeft(ThreadLeakChecker threads, ReaderUnderTest reader)
            throws InterruptedException {
        long deadline = System.nanoTime() + THREAD_GRACE.toNanos();
        List<Thread> left = readerThreads(threads);
        // threads end a little after the close that stops them: wait for them, never past the grace
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            left.get(0).join(50);
            left = readerThreads(threads);
        }
        assertThat(left)
                .as("threads %s left running after its session closed", reader.name())
                .extracting(Thread::getName)
                .isEmpty();
    }

    private static List<Thread> readerThreads(ThreadLeakChecker threads) {
        return threads.newThreads("").stream()
                .filter(thread -> SHARED_THREAD_PREFIXES.stream().noneMatch(thread.getName()::startsWith))
                .toList();
    }

    private static List<Backend> backends() {
        return MinioServer.binaryAvailable() ? List.of(Backend.S3PROXY, Backend.MINIO) : List.of(Backend.S3PROXY);
    }

    private static String put(S3Client s3, String key, byte[] bytes) {
        return s3.putObject(request -> request.bucket(BUCKET).key(key), RequestBody.fromBytes(bytes))
                .eTag();
    }

    private static Path writeParquet(Path path) throws IOException {
        SimpleGroupFactory rows = new SimpleGroupFactory(PARQUET_SCHEMA);
        // small row groups and pages, so a read spans several row groups of several column chunks
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(path))
                .withType(PARQUET_SCHEMA)
                .withRowGroupSize(128L * KIB)
                .withPageSize(16 * KIB)
                .build()) {
            for (int i = 0; i < PARQUET_ROWS; i++) {
                writer.write(rows.newGroup()
                        .append("id", (long) i)
                        .append("name", "row-" + i + "-" + Integer.toHexString(i * 31))
                        .append("score", score(i)));
            }
        }
        return path;
    }

    private static double score(int row) {
        return row * 0.5 - 17.25;
    }

    private static byte[] readToEnd(BenchmarkStream stream, int chunk) throws IOException {
        byte[] out = new byte[0];
        byte[] buffer = new byte[chunk];
        int total = 0;
        for (int read = stream.read(buffer, 0, chunk); read >= 0; read = stream.read(buffer, 0, chunk)) {
            if (total + read > out.length) {
                out = Arrays.copyOf(out, Math.max(total + read, out.length * 2));
            }
            System.arraycopy(buffer, 0, out, total, read);
            total += read;
        }
        return Arrays.copyOf(out, total);
    }

    private static void readFully(BenchmarkStream stream, byte[] buffer, int length) throws IOException {
        int done = 0;
        while (done < length) {
            int read = stream.read(buffer, done, length - done);
            assertThat(read)
                    .as("end of stream after %d of %d bytes", done, length)
                    .isPositive();
            done += read;
        }
    }

    private byte[] slice(long position, int length) {
        return Arrays.copyOfRange(object, (int) position, (int) position + length);
    }

    private static byte[] patterned(int size, long seed) {
        byte[] bytes = new byte[size];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    /** parquet-java's reader of example {@link Group}s over any {@link InputFile}. */
    private static final class GroupReaderBuilder extends ParquetReader.Builder<Group> {
        GroupReaderBuilder(InputFile file) {
            super(file);
        }

        @Override
        protected ReadSupport<Group> getReadSupport() {
            return new GroupReadSupport();
        }
    }
}
