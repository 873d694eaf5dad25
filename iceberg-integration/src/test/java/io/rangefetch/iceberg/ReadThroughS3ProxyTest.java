package io.rangefetch.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIOMetricsContext;
import org.apache.iceberg.io.FileRange;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** Reads through the FileIO's own client against S3Proxy in-process, counting the requests it sends. */
class ReadThroughS3ProxyTest {
    private static final String BUCKET = "iceberg-unit";
    private static final String KEY = "table/data/part-0.bin";
    private static final String LOCATION = "s3://" + BUCKET + "/" + KEY;
    private static final byte[] DATA = new byte[3 * 1024 * 1024 + 17];

    private static S3ProxyServer server;
    private static final RequestCounter requests = new RequestCounter();

    private CountingMetricsContext metrics;
    private RangefetchS3FileIO io;

    @BeforeAll
    static void startServer() throws Exception {
        new Random(13).nextBytes(DATA);
        server = S3ProxyServer.start();
        server.createBucket(BUCKET);
        try (S3Client client = S3Clients.sync(server)) {
            client.putObject(request -> request.bucket(BUCKET).key(KEY), RequestBody.fromBytes(DATA));
        }
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void openFileIO() {
        metrics = new CountingMetricsContext();
        // the FileIO owns the client its supplier builds and closes it (Iceberg's part of close)
        io = new RangefetchS3FileIO(() -> S3Clients.sync(server, requests), metrics);
        // no linger: the FileIO's close closes its factory, which the close tests check
        io.initialize(Map.of("rangefetch.read.min-request-size", "64KiB", "rangefetch.factory.linger", "0s"));
        requests.reset();
    }

    @AfterEach
    void closeFileIO() {
        io.close();
    }

    @Test
    void readsWhatWasWrittenThroughEveryKindOfRead() throws Exception {
        InputFile file = io.newInputFile(LOCATION, DATA.length);
        try (SeekableInputStream stream = file.newStream()) {
            assertThat(stream).isInstanceOf(RangeReadable.class);
            byte[] head = new byte[1000];
            readFully(stream, head);
            assertThat(head).isEqualTo(slice(0, 1000));
            stream.seek(2_000_000);
            assertThat(stream.read()).isEqualTo(DATA[2_000_000] & 0xff);
            assertThat(stream.getPos()).isEqualTo(2_000_001);

            RangeReadable ranges = (RangeReadable) stream;
            byte[] middle = new byte[4096];
            ranges.readFully(1_000_000, middle, 0, middle.length);
            assertThat(middle).isEqualTo(slice(1_000_000, 4096));
            byte[] tail = new byte[8];
            assertThat(ranges.readTail(tail, 0, 8)).isEqualTo(8);
            assertThat(tail).isEqualTo(slice(DATA.length - 8, 8));

            List<FileRange> vectored = List.of(range(3_000_000, 10_000), range(100, 50), range(1_500_000, 300_000));
            ranges.readVectored(vectored, ByteBuffer::allocate);
            for (FileRange range : vectored) {
                ByteBuffer buffer = range.byteBuffer().get(30, TimeUnit.SECONDS);
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                assertThat(bytes)
                        .as("%s bytes at %s", range.length(), range.offset())
                        .isEqualTo(slice(range.offset(), range.length()));
            }
        }
        assertThat(requests.heads()).as("HEADs with a known length").isZero();
        assertThat(requests.gets()).isPositive();
    }

    @Test
    void countsIcebergReadMetricsAsIcebergsStreamDoesOnTheCallersThread() throws Exception {
        try (SeekableInputStream stream = io.newInputFile(LOCATION, DATA.length).newStream()) {
            RangeReadable ranges = (RangeReadable) stream;
            assertThat(stream.read()).isNotNegative(); // 1 byte, 1 operation
            assertThat(stream.read(new byte[100], 0, 100)).isEqualTo(100); // 100 bytes, 1 operation
            ranges.readFully(5000, new byte[200], 0, 200); // 200 bytes, 1 operation
            ranges.readFully(5000, new byte[0], 0, 0); // nothing
            assertThat(ranges.readTail(new byte[10], 0, 10)).isEqualTo(10); // 10 bytes, 1 operation
            List<FileRange> vectored = List.of(range(0, 30), range(100_000, 70), range(200_000, 0));
            ranges.readVectored(vectored, ByteBuffer::allocate); // 100 bytes, 2 operations
            CompletableFuture.allOf(vectored.stream().map(FileRange::byteBuffer).toArray(CompletableFuture[]::new))
                    .get(30, TimeUnit.SECONDS);
            stream.seek(DATA.length);
            assertThat(stream.read()).isEqualTo(-1); // end of stream: nothing
        }
        assertThat(metrics.value(FileIOMetricsContext.READ_BYTES)).isEqualTo(1 + 100 + 200 + 10 + 100);
        assertThat(metrics.value(FileIOMetricsContext.READ_OPERATIONS)).isEqualTo(6);
        assertThat(metrics.lastThread(FileIOMetricsContext.READ_BYTES)).isSameAs(Thread.currentThread());
        assertThat(metrics.lastThread(FileIOMetricsContext.READ_OPERATIONS)).isSameAs(Thread.currentThread());
    }

    @Test
    void anUnknownLengthIsLearnedByTheFirstGetNotAHead() throws IOException {
        InputFile file = io.newInputFile(LOCATION);
        try (SeekableInputStream stream = file.newStream()) {
            assertThat(stream.read(new byte[10], 0, 10)).isEqualTo(10);
        }
        assertThat(file.getLength()).isEqualTo(DATA.length);
        // and a fresh file for the same object learns it from the factory's metadata
        assertThat(io.newInputFile(LOCATION).getLength()).isEqualTo(DATA.length);
        assertThat(requests.heads()).isZero();
        assertThat(requests.gets()).isOne();
    }

    @Test
    void getLengthWithNothingKnownSendsOneGetWhoseBytesTheNextReadUses() throws IOException {
        InputFile file = io.newInputFile(LOCATION);
        assertThat(file.getLength()).isEqualTo(DATA.length);
        assertThat(file.getLength()).isEqualTo(DATA.length);
        assertThat(requests.heads()).isZero();
        assertThat(requests.gets()).isOne();
        try (SeekableInputStream stream = file.newStream()) {
            byte[] head = new byte[100];
            readFully(stream, head);
            assertThat(head).isEqualTo(slice(0, 100));
        }
        assertThat(requests.gets()).as("the head came from the length's GET").isOne();
        assertThat(file.exists()).isTrue();
        assertThat(requests.heads()).isZero();
    }

    @Test
    void aMissingObjectIsNotFoundAtTheFirstReadLikeIcebergsStream() throws IOException {
        String missing = "s3://" + BUCKET + "/table/data/missing.parquet";
        InputFile file = io.newInputFile(missing, 1234);
        // opening does not fail (the Parquet policy may start the footer's GET in the background; its failure
        // waits for the first read, as the failure of Iceberg's own stream does)
        SeekableInputStream stream = file.newStream();
        assertThatThrownBy(() -> stream.read(new byte[10], 0, 10))
                .isInstanceOf(NotFoundException.class)
                .hasMessageContaining(missing);
        assertThatThrownBy(() -> ((RangeReadable) stream).readFully(0, new byte[10], 0, 10))
                .isInstanceOf(NotFoundException.class);
        stream.close();
        assertThat(io.newInputFile(missing).exists()).isFalse();
        assertThatThrownBy(() -> io.newInputFile(missing).getLength()).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aStreamOpenWhenTheFileIOClosesFailsItsNextRequestClearly() throws IOException {
        SeekableInputStream stream = io.newInputFile(LOCATION, DATA.length).newStream();
        io.close();
        assertThatThrownBy(() -> stream.read(new byte[10], 0, 10))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("closed");
        stream.close();
        assertThat(requests.gets()).isZero();
    }

    @Test
    void closingTheFileIOLeavesNoThreadRangefetchStarted() throws IOException {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        try (SeekableInputStream stream = io.newInputFile(LOCATION, DATA.length).newStream()) {
            ((RangeReadable) stream).readFully(0, new byte[DATA.length], 0, DATA.length);
        }
        assertThat(threads.newThreads("rangefetch-")).isNotEmpty();
        io.close();
        threads.assertNoNewThreads("rangefetch-", Duration.ofSeconds(10));
    }

    private static FileRange range(long offset, int length) {
        return new FileRange(new CompletableFuture<>(), offset, length);
    }

    private static byte[] slice(long offset, int length) {
        byte[] bytes = new byte[length];
        System.arraycopy(DATA, (int) offset, bytes, 0, length);
        return bytes;
    }

    private static void readFully(SeekableInputStream stream, byte[] buffer) throws IOException {
        int done = 0;
        while (done < buffer.length) {
            int read = stream.read(buffer, done, buffer.length - done);
            assertThat(read).isPositive();
            done += read;
        }
    }

    /** Counts GetObject and HeadObject requests the client sends. */
    static final class RequestCounter implements ExecutionInterceptor {
        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            String operation = context.request().getClass().getSimpleName();
            counts.computeIfAbsent(operation, ignored -> new AtomicInteger()).incrementAndGet();
        }

        int gets() {
            return count("GetObjectRequest");
        }

        int heads() {
            return count("HeadObjectRequest");
        }

        private int count(String operation) {
            AtomicInteger count = counts.get(operation);
            return count == null ? 0 : count.get();
        }

        void reset() {
            counts.clear();
        }
    }
}
