package io.rangefetch.it;

import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Vectored reads and the fetch scheduler against a real S3 server, subclassed once per backend. Every client
 * reaches the server through a {@link ShapingProxy} modelling S3 in-region ({@link NetworkModel#s3InRegion()}:
 * a first-byte delay and a per-connection rate), whose ledger shows the GETs on the wire: how many, their
 * ranges, their arrival order, how many were in flight at once. Every range's bytes are compared with the
 * uploaded object.
 *
 * <p>No test waits for time to pass or measures it. Where an order or an overlap must be forced, {@link HeldGets}
 * holds chosen GETs on the client until the test lets them go.
 */
abstract class VectoredReadSuite extends ProxiedS3ServerTestBase {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * 1024;
    private static final String NAME = "object";
    private static final long WAIT_SECONDS = 30;

    private byte[] object;
    private String etag;

    VectoredReadSuite() {
        super(NetworkModel.s3InRegion());
    }

    @BeforeAll
    void uploadTheObject() throws IOException {
        object = randomBytes(64 * MIB, 11);
        try (S3Client s3 = S3Clients.sync(server())) {
            etag = put(s3, NAME, object);
        }
    }

    @Test
    void fiveRangesWithGapsBelowTheMinimumRequestCostOneGetSpanningThemAll() throws Exception {
        List<FileRange> ranges = fiveRangesOf10000Bytes(60_000);
        ProxyLedger ledger = readVectoredAndCheck(ranges);

        assertThat(ledger.gets()).as("%s", ledger).isEqualTo(1);
        assertThat(ledger.requests())
                .extracting(ProxiedRequest::rangeHeader)
                .containsExactly(rangeHeader(3L * MIB, 4 * 60_000 + 10_000));
    }

    /**
     * Gaps of 190,000 bytes, worth a GET each while connections are idle: read through, they would delay the
     * ranges after them.
     */
    @Test
    void fiveRangesWithWideGapsCostOneGetEach() throws Exception {
        List<FileRange> ranges = fiveRangesOf10000Bytes(200_000);
        ProxyLedger ledger = readVectoredAndCheck(ranges);

        assertThat(ledger.requests())
                .as("%s", ledger)
                .extracting(ProxiedRequest::rangeHeader)
                .containsExactlyInAnyOrderElementsOf(ranges.stream()
                        .map(range -> rangeHeader(range.offset(), range.length()))
                        .toList());
    }

    /** Five ranges of 10,000 bytes from 3 MiB on, one every {@code stride} bytes. */
    private static List<FileRange> fiveRangesOf10000Bytes(long stride) {
        List<FileRange> ranges = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ranges.add(FileRange.of(3L * MIB + i * stride, 10_000));
        }
        return ranges;
    }

    @Test
    void threeRangesTwentyMegabytesApartCostOneGetEach() throws Exception {
        List<FileRange> ranges =
                List.of(FileRange.of(41L * MIB, 100_000), FileRange.of(MIB, 100_000), FileRange.of(21L * MIB, 100_000));
        ProxyLedger ledger = readVectoredAndCheck(ranges);

        assertThat(ledger.gets()).as("%s", ledger).isEqualTo(3);
        assertThat(ledger.requests())
                .extracting(ProxiedRequest::rangeHeader)
                .containsExactlyInAnyOrder(
                        rangeHeader(MIB, 100_000), rangeHeader(21L * MIB, 100_000), rangeHeader(41L * MIB, 100_000));
    }

    @Test
    void aTwentyFourMebibyteRangeCostsThreeGetsInFlightAtOnce() throws Exception {
        ProxyLedger ledger = countingLedger();
        // each 8 MiB part waits on its fetch thread, about to be sent, until all three are there: parts sent one
        // after another would never all be held, and the test would fail at awaitHeld
        HeldGets parts = new HeldGets(range -> firstByte(range) >= 40L * MIB);
        FileRange large = FileRange.of(40L * MIB, 24 * MIB);
        withSyncFactory(
                StreamConfig.defaults(),
                factory -> {
                    try (SeekableS3InputStream stream = open(factory)) {
                        try {
                            stream.readVectored(List.of(large), ByteBuffer::allocate);
                            parts.awaitHeld(3);
                        } finally {
                            parts.release();
                        }
                        assertHolds(large);
                    }
                },
                parts);

        assertThat(ledger.requests())
                .extracting(ProxiedRequest::rangeHeader)
                .containsExactlyInAnyOrder(
                        rangeHeader(40L * MIB, 8 * MIB),
                        rangeHeader(48L * MIB, 8 * MIB),
                        rangeHeader(56L * MIB, 8 * MIB));
        // released together, each ~100 ms on the wire at 80 MB/s: the proxy has them all at once
        assertThat(ledger.maxRequestsInFlight()).as("%s", ledger).isEqualTo(3);
    }

    @Test
    void badRangesFailTheWholeCallBeforeAnyRequest() throws Exception {
        ProxyLedger ledger = countingLedger();
        FileRange good = FileRange.of(5L * MIB, 1000);
        withSyncFactory(StreamConfig.defaults(), factory -> {
            try (SeekableS3InputStream stream = open(factory)) {
                assertThatThrownBy(() -> stream.readVectored(
                                List.of(FileRange.of(MIB, 100), FileRange.of(MIB + 50, 100)), ByteBuffer::allocate))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("overlap");
                assertThatThrownBy(() -> stream.readVectored(
                                List.of(FileRange.of(0, 10), FileRange.of(object.length - 5, 10)),
                                ByteBuffer::allocate))
                        .isInstanceOf(EOFException.class)
                        .hasMessageContaining("past the end");
                assertThatThrownBy(() -> stream.readVectored(
                                List.of(FileRange.of(MIB, 10), FileRange.of(-1, 10)), ByteBuffer::allocate))
                        .isInstanceOf(EOFException.class)
                        .hasMessageContaining("negative offset");
                assertThat(ledger.gets()).as("%s", ledger).isZero();
                assertThat(ledger.requests()).isEmpty();

                // the stream still reads, and nothing a refused call might have queued goes out with it
                assertReadsVectored(stream, List.of(good));
            }
        });

        assertThat(ledger.requests())
                .extracting(ProxiedRequest::rangeHeader)
                .containsExactly(rangeHeader(good.offset(), good.length()));
    }

    /**
     * With one fetch slot, a demand read queued after a prefetch still goes first. A held GET keeps the slot busy
     * while a sequential stream queues a prefetch and another stream then queues a demand read; once the slot is
     * free, the demand read's GET must reach the server before the prefetch's. A scheduler taking its queue in
     * arrival order sends the prefetch first.
     */
    @Test
    void aPrefetchNeverDelaysADemandReadWhenOneGetRunsAtATime() throws Exception {
        ProxyLedger ledger = countingLedger();
        HeldGets slot = new HeldGets(range -> firstByte(range) == 40L * MIB);
        FileRange occupying = FileRange.of(40L * MIB, 8 * MIB);
        FileRange demand = FileRange.of(20L * MIB, 100);
        withSyncFactory(
                StreamConfig.builder().set(FETCH_MAX_CONCURRENCY, 1).build(),
                factory -> {
                    try (SeekableS3InputStream scanner = open(factory);
                            SeekableS3InputStream occupier = open(factory);
                            SeekableS3InputStream reader = open(factory)) {
                        assertReadsFully(scanner, 0, MIB); // [0, 1 MiB) is cached now
                        ledger.reset();
                        try {
                            occupier.readVectored(List.of(occupying), ByteBuffer::allocate);
                            slot.awaitHeld(1);
                            // Two streaming reads in a row make the stream sequential: the second queues a prefetch of
                            // the
                            // initial window from 1 MiB, where the cached bytes end, well short of the demand read
                            // below.
                            scanner.seek(0);
                            assertStreams(scanner, 8 * KIB);
                            assertStreams(scanner, 8 * KIB);
                            reader.readVectored(List.of(demand), ByteBuffer::allocate);
                        } finally {
                            slot.release();
                        }
                        assertHolds(occupying);
                        assertHolds(demand);
                        assertReadsFully(scanner, MIB, 8 * KIB); // waits for the prefetch if it is not in yet
                        assertThat(scanner.statistics().prefetchedBytes())
                                .as("%s", scanner.statistics())
                                .isPositive();
                    }
                },
                slot);

        List<Long> starts = ledger.requests().stream()
                .filter(request -> request.method().equals("GET"))
                .map(request -> firstByte(request.rangeHeader()))
                .toList();
        assertThat(starts)
                .as("first bytes of the GETs in arrival order")
                .startsWith(40L * MIB)
                .contains(20L * MIB, (long) MIB);
        assertThat(starts.indexOf(20L * MIB))
                .as("the demand GET arrives before the prefetch; GETs from %s", starts)
                .isLessThan(starts.indexOf((long) MIB));
    }

    /**
     * Closing a stream cuts the connection of its prefetch in flight (the SDK's abort, not a close that would
     * read the body to its end), and leaves nothing of it cached: the next reader of those bytes fetches them.
     */
    @Test
    void closingAStreamAbortsItsPrefetchMidBody() throws Exception {
        ProxyLedger ledger = countingLedger();
        withSyncFactory(StreamConfig.defaults(), factory -> {
            long prefetchStart = 64 * KIB; // after the first read's 64 KiB block
            try (SeekableS3InputStream scanner = open(factory)) {
                ledger.reset();
                assertStreams(scanner, 8 * KIB);
                assertStreams(scanner, 8 * KIB); // sequential now: a 4 MiB prefetch from 64 KiB is on its way
                ProxiedRequest prefetch = awaitBodyStarted(ledger, prefetchStart);
                assertThat(prefetch.bodyBytes()).isLessThan(4L * MIB);
            }
            long inPrefetch = 4L * MIB - 100;
            try (SeekableS3InputStream next = open(factory)) {
                assertReadsFully(next, inPrefetch, 100);
            }
            List<ProxiedRequest> gets = ledger.requests().stream()
                    .filter(request -> request.method().equals("GET"))
                    .toList();
            ProxiedRequest aborted = gets.stream()
                    .filter(get -> firstByte(get.rangeHeader()) == prefetchStart)
                    .findFirst()
                    .orElseThrow();
            assertThat(aborted.bodyBytes())
                    .as("body bytes the aborted prefetch moved: %s", aborted)
                    .isLessThan(lastByte(aborted.rangeHeader()) + 1 - prefetchStart);
            assertThat(gets.stream()
                            .filter(get -> firstByte(get.rangeHeader()) <= inPrefetch
                                    && lastByte(get.rangeHeader()) >= inPrefetch))
                    .as("GETs for the aborted bytes")
                    .hasSize(2);
        });
    }

    /** Waits (bounded, not timed) until the GET starting at {@code firstByte} has sent body bytes. */
    private static ProxiedRequest awaitBodyStarted(ProxyLedger ledger, long firstByte) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            for (ProxiedRequest request : ledger.requests()) {
                if (request.method().equals("GET")
                        && firstByte(request.rangeHeader()) == firstByte
                        && request.bodyBytes() > 0) {
                    return request;
                }
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("No GET from " + firstByte + " started its body: " + ledger.requests());
    }

    @Test
    void eightThreadsReadingPositionedAndVectoredOnSharedAndOwnStreamsGetTheirBytesAndLeaveNoThread() throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        ExecutorService readers = Executors.newFixedThreadPool(8);
        try (S3AsyncClient s3 = S3Clients.nettyAsync(proxied());
                StreamFactory factory = StreamFactory.create(s3, StreamConfig.defaults());
                SeekableS3InputStream shared = open(factory)) {
            List<Future<?>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                long seed = i;
                results.add(readers.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    try (SeekableS3InputStream own = open(factory)) {
                        for (int n = 0; n < 20; n++) {
                            SeekableS3InputStream stream = n % 2 == 0 ? shared : own;
                            if (random.nextBoolean()) {
                                int length = random.nextInt(1, 2 * MIB);
                                assertReadsFully(stream, random.nextLong(object.length - length), length);
                            } else {
                                assertReadsVectored(stream, randomDisjointRanges(random));
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> result : results) {
                result.get(2, TimeUnit.MINUTES);
            }
            assertThat(threads.newThreads("rangefetch-fetch-")).isNotEmpty();
        } finally {
            readers.shutdownNow();
        }
        threads.assertNoNewThreads("rangefetch-fetch-", Duration.ofSeconds(10));
        threads.assertNoNewThreads(S3Clients.NETTY_THREAD_PREFIX, Duration.ofSeconds(10));
    }

    /** One to six disjoint ranges of up to 512 KiB, gaps of up to 6 MiB: some share a GET, some do not. */
    private List<FileRange> randomDisjointRanges(SplittableRandom random) {
        int count = random.nextInt(1, 7);
        List<FileRange> ranges = new ArrayList<>(count);
        long position = random.nextLong(object.length / 2);
        while (ranges.size() < count) {
            int length = random.nextInt(1, 512 * KIB);
            if (position + length > object.length) {
                break;
            }
            ranges.add(FileRange.of(position, length));
            position += length + random.nextLong(6L * MIB);
        }
        return ranges;
    }

    /** Reads {@code ranges} at once on a fresh factory, checks their bytes, and returns the ledger of the read. */
    private ProxyLedger readVectoredAndCheck(List<FileRange> ranges) throws Exception {
        ProxyLedger ledger = countingLedger();
        withSyncFactory(StreamConfig.defaults(), factory -> {
            try (SeekableS3InputStream stream = open(factory)) {
                assertReadsVectored(stream, ranges);
            }
        });
        return ledger;
    }

    private void assertReadsVectored(SeekableS3InputStream stream, List<FileRange> ranges) throws Exception {
        stream.readVectored(ranges, ByteBuffer::allocate);
        for (FileRange range : ranges) {
            assertHolds(range);
        }
    }

    /** Builds a factory on a fresh sync client with {@code interceptors}, runs the body, closes both. */
    private void withSyncFactory(StreamConfig config, FactoryBody body, ExecutionInterceptor... interceptors)
            throws Exception {
        try (S3Client s3 = S3Clients.sync(proxied(), interceptors);
                StreamFactory factory = StreamFactory.create(s3, config)) {
            body.run(factory);
        }
    }

    @FunctionalInterface
    private interface FactoryBody {
        void run(StreamFactory factory) throws Exception;
    }

    /** A stream that knows the object's length and ETag, so it sends no request but the reads' own GETs. */
    private SeekableS3InputStream open(StreamFactory factory) {
        return factory.open(
                new S3Location(bucket(), key(NAME)),
                OpenOptions.builder().length(object.length).etag(etag).build());
    }

    private void assertHolds(FileRange range) throws Exception {
        ByteBuffer buffer = range.data().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(buffer.remaining()).as("bytes of %s", range).isEqualTo(range.length());
        byte[] bytes = new byte[range.length()];
        buffer.duplicate().get(bytes);
        assertSameBytes(bytes, range.offset(), range.toString());
    }

    private void assertReadsFully(SeekableS3InputStream stream, long position, int length) throws IOException {
        byte[] bytes = new byte[length];
        stream.readFully(position, bytes, 0, length);
        assertSameBytes(bytes, position, length + " bytes read fully at " + position);
    }

    /** One streaming read of exactly {@code length} bytes, as a cache hit gives them. */
    private void assertStreams(SeekableS3InputStream stream, int length) throws IOException {
        long position = stream.getPos();
        byte[] bytes = new byte[length];
        assertThat(stream.read(bytes, 0, length)).as("read at %d", position).isEqualTo(length);
        assertSameBytes(bytes, position, length + " bytes streamed at " + position);
    }

    /** Compares with the object; on a mismatch names the first wrong byte rather than print megabytes. */
    private void assertSameBytes(byte[] bytes, long position, String what) {
        byte[] expected = Arrays.copyOfRange(object, (int) position, (int) position + bytes.length);
        assertThat(Arrays.mismatch(bytes, expected))
                .as("first wrong byte of %s", what)
                .isEqualTo(-1);
    }

    private static String rangeHeader(long offset, long length) {
        return "bytes=" + offset + "-" + (offset + length - 1);
    }

    /** The last byte a {@code bytes=first-last} range names. */
    private static long lastByte(String rangeHeader) {
        return Long.parseLong(rangeHeader.substring(rangeHeader.indexOf('-') + 1));
    }

    /** The first byte a {@code bytes=first-last} range names. */
    private static long firstByte(String rangeHeader) {
        assertThat(rangeHeader).as("a closed range").matches("bytes=\\d+-\\d+");
        return Long.parseLong(rangeHeader.substring("bytes=".length(), rangeHeader.indexOf('-')));
    }
}
