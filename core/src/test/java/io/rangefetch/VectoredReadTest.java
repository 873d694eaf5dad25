package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class VectoredReadTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int KIB = 1024;
    private static final int MIB = StreamFixture.MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    /** A stream that knows the object's length and ETag, so a vectored read sends only its own GETs. */
    private SeekableS3InputStream open(StreamFactory factory, String key) {
        OpenOptions options = OpenOptions.builder()
                .length(fixture.length(key))
                .etag(client.etag(BUCKET, key))
                .build();
        return factory.open(new S3Location(BUCKET, key), options);
    }

    private static byte[] bytesOf(FileRange range) throws Exception {
        ByteBuffer buffer = range.data().get(30, TimeUnit.SECONDS);
        assertThat(buffer.remaining()).isEqualTo(range.length());
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private static void assertHolds(FileRange range, byte[] data) throws Exception {
        assertThat(bytesOf(range)).as(range.toString()).isEqualTo(Arrays.copyOfRange(data, (int) range.offset(), (int)
                range.end()));
    }

    @Test
    void everyRangeGetsExactlyItsBytesInHeapOrDirectBuffersWhateverTheOrder() throws Exception {
        byte[] data = fixture.put("mixed", 40 * MIB);
        try (SeekableS3InputStream stream = open(fixture.factory(), "mixed")) {
            List<FileRange> ranges = new ArrayList<>(List.of(
                    FileRange.of(30L * MIB, 100),
                    FileRange.of(0, 1),
                    FileRange.of(5 * MIB, 3 * MIB),
                    FileRange.of(40L * MIB - 10, 10),
                    FileRange.of(7, 0),
                    FileRange.of(12 * MIB, 17 * MIB)));
            Collections.shuffle(ranges, new java.util.Random(7));
            stream.readVectored(
                    ranges,
                    length -> length % 2 == 0 ? ByteBuffer.allocateDirect(length) : ByteBuffer.allocate(length));
            for (FileRange range : ranges) {
                assertHolds(range, data);
            }
            assertThat(stream.getPos()).isZero();
            fixture.awaitQuiet();
            assertThat(stream.statistics().bytesServed())
                    .isEqualTo(ranges.stream().mapToLong(FileRange::length).sum());
        }
    }

    @Test
    void bytesLandAtTheBuffersPositionAndTheLimitEndsThem() throws Exception {
        byte[] data = fixture.put("offset", MIB);
        try (SeekableS3InputStream stream = open(fixture.factory(), "offset")) {
            FileRange range = FileRange.of(1000, 500);
            stream.readVectored(
                    List.of(range), length -> ByteBuffer.allocate(length + 100).position(40));
            ByteBuffer buffer = range.data().get(30, TimeUnit.SECONDS);
            assertThat(buffer.position()).isEqualTo(40);
            assertThat(buffer.limit()).isEqualTo(540);
            assertHolds(range, data);
        }
    }

    @Test
    void fiveRangesWithNarrowGapsCostOneGet() throws Exception {
        byte[] data = fixture.put("near", 16 * MIB);
        try (SeekableS3InputStream stream = open(fixture.factory(), "near")) {
            // gaps of 50,000 bytes: below the minimum request, so not worth a GET of their own
            List<FileRange> ranges = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ranges.add(FileRange.of(2L * MIB + i * 60_000L, 10_000));
            }
            stream.readVectored(ranges, ByteBuffer::allocate);
            for (FileRange range : ranges) {
                assertHolds(range, data);
            }
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .containsExactly(new ByteRange(2L * MIB, 2L * MIB + 4 * 60_000 + 10_000));
    }

    @Test
    void rangesWithWideGapsCostOneGetEachWhileConnectionsAreIdleAndShareOneOnASingleConnection() throws Exception {
        byte[] data = fixture.put("near", 16 * MIB);
        // gaps of 190,000 bytes: read through they would delay the ranges after them
        List<FileRange> ranges = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ranges.add(FileRange.of(2L * MIB + i * 200_000L, 10_000));
        }
        try (SeekableS3InputStream stream = open(fixture.factory(), "near")) {
            stream.readVectored(ranges, ByteBuffer::allocate);
            for (FileRange range : ranges) {
                assertHolds(range, data);
            }
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .containsExactlyInAnyOrderElementsOf(ranges.stream()
                        .map(range -> ByteRange.ofLength(range.offset(), range.length()))
                        .toList());
        client.clearLog();
        StreamFactory oneConnection = fixture.factory(
                StreamConfig.builder().set(FETCH_MAX_CONCURRENCY, 1).build());
        try (SeekableS3InputStream stream = open(oneConnection, "near")) {
            List<FileRange> again = ranges.stream()
                    .map(range -> FileRange.of(range.offset(), range.length()))
                    .toList();
            stream.readVectored(again, ByteBuffer::allocate);
            for (FileRange range : again) {
                assertHolds(range, data);
            }
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .containsExactly(new ByteRange(2L * MIB, 2L * MIB + 4 * 200_000 + 10_000));
    }

    @Test
    void rangesFarApartCostOneGetEachAndALargeRangeIsCutIntoParallelParts() throws Exception {
        byte[] data = fixture.put("far", 64 * MIB);
        // every GET waits here until all five have arrived: a read that sent them one after another would fail
        CountDownLatch allSent = new CountDownLatch(5);
        client.addFault(request -> {
            allSent.countDown();
            try {
                if (!allSent.await(20, TimeUnit.SECONDS)) {
                    throw new IOException("GETs were not sent in parallel");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        });
        try (SeekableS3InputStream stream = open(fixture.factory(), "far")) {
            List<FileRange> ranges =
                    List.of(FileRange.of(0, 1000), FileRange.of(20L * MIB, 1000), FileRange.of(40L * MIB, 24 * MIB));
            stream.readVectored(ranges, ByteBuffer::allocate);
            for (FileRange range : ranges) {
                assertHolds(range, data);
            }
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .containsExactlyInAnyOrder(
                        new ByteRange(0, 1000),
                        new ByteRange(20L * MIB, 20L * MIB + 1000),
                        new ByteRange(40L * MIB, 48L * MIB),
                        new ByteRange(48L * MIB, 56L * MIB),
                        new ByteRange(56L * MIB, 64L * MIB));
    }

    @Test
    void aSmallObjectIsFetchedWholeInParallelPartsOnItsFirstVectoredRead() throws Exception {
        byte[] data = fixture.put("small", 2 * MIB);
        try (SeekableS3InputStream stream = open(fixture.factory(), "small")) {
            FileRange first = FileRange.of(100, 10);
            stream.readVectored(List.of(first), ByteBuffer::allocate);
            assertHolds(first, data);
            // later ranges in the third and fourth parts join those parts' GETs (or find them done)
            List<FileRange> later = List.of(FileRange.of(MIB + 7, 300_000), FileRange.of(2 * MIB - 100, 100));
            stream.readVectored(later, ByteBuffer::allocate);
            for (FileRange range : later) {
                assertHolds(range, data);
            }
        }
        fixture.awaitQuiet();
        // read.small-object-part-size 512 KiB: four parts, the whole object, and nothing fetched twice
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .containsExactlyInAnyOrder(
                        new ByteRange(0, 512 * KIB), new ByteRange(512 * KIB, MIB),
                        new ByteRange(MIB, MIB + 512 * KIB), new ByteRange(MIB + 512 * KIB, 2 * MIB));
    }

    @Test
    void aPrefetchBringsRangesIntoTheCacheCoalescedAndReadsThenCostNothing() throws Exception {
        byte[] data = fixture.put("prefetched", 64 * MIB);
        try (SeekableS3InputStream stream = open(fixture.factory(), "prefetched")) {
            stream.prefetch(List.of(
                    ByteRange.ofLength(10L * MIB, MIB),
                    ByteRange.ofLength(11L * MIB + 50_000, MIB),
                    ByteRange.ofLength(40L * MIB, 2 * MIB),
                    ByteRange.ofLength(40L * MIB + 10, 20)));
            byte[] buffer = new byte[1000];
            for (long position : new long[] {10L * MIB, 12L * MIB + 49_000, 40L * MIB + 5, 42L * MIB - 1000}) {
                stream.readFully(position, buffer, 0, buffer.length);
                assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + 1000));
            }
            fixture.awaitQuiet();
            assertThat(stream.statistics().prefetchedBytes()).isEqualTo(2L * MIB + 50_000 + 2 * MIB);
        }
        // the first two share a GET across their 50 KB gap (below the minimum request); the last is inside the third
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .containsExactlyInAnyOrder(
                        new ByteRange(10L * MIB, 12L * MIB + 50_000), new ByteRange(40L * MIB, 42L * MIB));
    }

    @Test
    void closingAStreamStopsItsPrefetchesInFlight() throws Exception {
        fixture.put("stopped", 64 * MIB);
        BodyHold hold = client.holdBodies(Request::isGet);
        try (SeekableS3InputStream stream = open(fixture.factory(), "stopped")) {
            stream.prefetch(List.of(ByteRange.ofLength(20L * MIB, MIB)));
            assertThat(hold.awaitHeld(1)).isTrue();
        }
        assertThat(hold.awaitClosedWhileHeld(1)).as("the prefetch was aborted").isTrue();
        hold.release();
    }

    @Test
    void badInputFailsTheWholeCallBeforeAnyRequest() throws Exception {
        fixture.put("bad", MIB);
        try (SeekableS3InputStream stream = open(fixture.factory(), "bad")) {
            assertThatThrownBy(() -> stream.readVectored(List.of(FileRange.of(-1, 10)), ByteBuffer::allocate))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("negative offset");
            assertThatThrownBy(() -> stream.readVectored(List.of(FileRange.of(0, -10)), ByteBuffer::allocate))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("negative length");
            assertThatThrownBy(() -> stream.readVectored(
                            List.of(FileRange.of(0, 10), FileRange.of(MIB - 5, 10)), ByteBuffer::allocate))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("10 bytes at " + (MIB - 5))
                    .hasMessageContaining("past the end");
            assertThatThrownBy(() -> stream.readVectored(
                            List.of(FileRange.of(500, 100), FileRange.of(0, 10), FileRange.of(550, 100)),
                            ByteBuffer::allocate))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("100 bytes at 500")
                    .hasMessageContaining("100 bytes at 550");
            FileRange once = FileRange.of(0, 10);
            assertThatThrownBy(() -> stream.readVectored(List.of(once, once), ByteBuffer::allocate))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("read once");
            assertThatThrownBy(() -> stream.readVectored(
                            List.of(FileRange.of(0, 10)),
                            length -> ByteBuffer.allocate(length).asReadOnlyBuffer()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("writable");
        }
        fixture.awaitQuiet();
        assertThat(client.requests()).isEmpty();
    }

    @Test
    void aStreamThatKnowsNothingLearnsTheLengthWithItsFirstRangeThenChecksTheRest() throws Exception {
        byte[] data = fixture.put("unknown", 2 * MIB);
        StreamFactory factory = fixture.factory();
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "unknown"))) {
            assertThatThrownBy(() -> stream.readVectored(
                            List.of(FileRange.of(100, 10), FileRange.of(2L * MIB, 1)), ByteBuffer::allocate))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("length " + 2 * MIB);
            FileRange range = FileRange.of(100, 10);
            stream.readVectored(List.of(range), ByteBuffer::allocate);
            assertHolds(range, data);
        }
        fixture.awaitQuiet();
        // the one GET that learned the version read the small object whole; the second read came from the cache
        assertThat(client.gets()).hasSize(1);
        assertThat(client.count("HEAD")).isZero();
    }

    @Test
    void aFailedGetFailsExactlyTheRangesItCarriedAndHandsTheirBuffersBack() throws Exception {
        byte[] data = fixture.put("failing", 64 * MIB);
        IOException broken = new IOException("connection reset");
        InMemoryObjectClient.Fault fault = client.addFault(InMemoryObjectClient.failWhen(
                request -> request.isGet() && request.byteRange().start() == 30L * MIB, broken));
        List<ByteBuffer> released = new CopyOnWriteArrayList<>();
        try (SeekableS3InputStream stream = open(fixture.factory(), "failing")) {
            FileRange before = FileRange.of(0, 1000);
            FileRange carried = FileRange.of(30L * MIB, 1000);
            FileRange alsoCarried = FileRange.of(30L * MIB + 5000, 1000);
            FileRange after = FileRange.of(60L * MIB, 1000);
            stream.readVectored(List.of(before, carried, alsoCarried, after), ByteBuffer::allocate, released::add);
            assertHolds(before, data);
            assertHolds(after, data);
            for (FileRange failed : List.of(carried, alsoCarried)) {
                // tried again until the retries ran out: the last attempt's failure is the cause
                assertThatThrownBy(() -> failed.data().get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .hasMessageContaining("connection reset")
                        .cause()
                        .isSameAs(broken);
            }
            assertThat(released).hasSize(2);
            // nothing of the failed GET stayed cached: reading the range again fetches it, and it comes back
            client.removeFault(fault);
            fixture.awaitQuiet();
            client.clearLog();
            FileRange again = FileRange.of(30L * MIB, 1000);
            stream.readVectored(List.of(again), ByteBuffer::allocate);
            assertHolds(again, data);
            fixture.awaitQuiet();
            assertThat(client.gets()).hasSize(1);
        }
    }

    @Test
    void bytesAlreadyCachedAreNotFetchedAgain() throws Exception {
        byte[] data = fixture.put("cached", 32 * MIB);
        StreamFactory factory = fixture.factory();
        try (SeekableS3InputStream stream = open(factory, "cached")) {
            byte[] buffer = new byte[100 * KIB];
            stream.readFully(10L * MIB, buffer, 0, buffer.length);
            fixture.awaitQuiet();
            List<ByteRange> first =
                    client.gets().stream().map(Request::byteRange).toList();
            assertThat(first).hasSize(1);
            client.clearLog();
            // one range wholly inside the cached block, one straddling its end, one far off
            ByteRange cached = first.get(0);
            FileRange inside = FileRange.of(cached.start() + 10, 1000);
            FileRange straddling = FileRange.of(cached.end() - 100, 1000);
            FileRange far = FileRange.of(30L * MIB, 1000);
            stream.readVectored(List.of(inside, straddling, far), ByteBuffer::allocate);
            for (FileRange range : List.of(inside, straddling, far)) {
                assertHolds(range, data);
            }
            fixture.awaitQuiet();
            assertThat(client.gets())
                    .extracting(Request::byteRange)
                    .containsExactlyInAnyOrder(
                            new ByteRange(cached.end(), cached.end() + 900),
                            new ByteRange(30L * MIB, 30L * MIB + 1000));
        }
    }

    @Test
    void aRangeAroundASmallCachedBlockIsOneGetAndAroundALargeOneTwo() throws Exception {
        byte[] data = fixture.put("around", 32 * MIB);
        // one connection: no request is split to use an idle one
        StreamFactory factory = fixture.factory(
                StreamConfig.builder().set(FETCH_MAX_CONCURRENCY, 1).build());
        try (SeekableS3InputStream stream = open(factory, "around")) {
            byte[] small = new byte[1000];
            stream.readFully(5L * MIB, small, 0, small.length); // one minimum request: 64 KiB
            byte[] large = new byte[300 * KIB];
            stream.readFully(20L * MIB, large, 0, large.length);
            fixture.awaitQuiet();
            assertThat(client.gets()).hasSize(2);
            client.clearLog();
            // a column chunk whose dictionary page was read first: read through its cached block
            FileRange aroundSmall = FileRange.of(4L * MIB, 2 * MIB);
            stream.readVectored(List.of(aroundSmall), ByteBuffer::allocate);
            assertHolds(aroundSmall, data);
            fixture.awaitQuiet();
            assertThat(client.gets())
                    .extracting(Request::byteRange)
                    .as("the 64 KiB block read again")
                    .containsExactly(new ByteRange(4L * MIB, 6L * MIB));
            client.clearLog();
            FileRange aroundLarge = FileRange.of(19L * MIB, 2 * MIB);
            stream.readVectored(List.of(aroundLarge), ByteBuffer::allocate);
            assertHolds(aroundLarge, data);
            fixture.awaitQuiet();
            assertThat(client.gets()).as("300 KiB is worth a GET more").hasSize(2);
            client.clearLog();
            // what the GET around the small block brought is cached (the block's own bytes were dropped)
            byte[] again = new byte[2 * MIB];
            stream.readFully(4L * MIB, again, 0, again.length);
            assertThat(again).isEqualTo(Arrays.copyOfRange(data, 4 * MIB, 6 * MIB));
            fixture.awaitQuiet();
            assertThat(client.gets()).isEmpty();
        }
    }

    @Test
    void gapBytesAreCachedWithinTheToleranceAndDroppedAboveIt() throws Exception {
        byte[] data = fixture.put("gaps", 32 * MIB);
        // one connection: no gap is split to use an idle one, so both gaps are read through
        StreamFactory factory = fixture.factory(
                StreamConfig.builder().set(FETCH_MAX_CONCURRENCY, 1).build());
        try (SeekableS3InputStream stream = open(factory, "gaps")) {
            // 100 KB gap between two 1 MB ranges: 5% of the useful bytes, so the gap stays cached
            stream.readVectored(List.of(FileRange.of(0, MIB), FileRange.of(MIB + 100_000, MIB)), ByteBuffer::allocate);
            // 1 MB gap between two 100 KB ranges: ten times the useful bytes, so it is dropped
            FileRange left = FileRange.of(10L * MIB, 100_000);
            FileRange right = FileRange.of(11L * MIB + 100_000, 100_000);
            stream.readVectored(List.of(left, right), ByteBuffer::allocate);
            assertHolds(left, data);
            assertHolds(right, data);
            fixture.awaitQuiet();
            assertThat(client.gets()).hasSize(2);
            client.clearLog();
            byte[] buffer = new byte[1000];
            stream.readFully(MIB + 50_000, buffer, 0, buffer.length);
            fixture.awaitQuiet();
            assertThat(client.gets()).as("the small gap was cached").isEmpty();
            stream.readFully(10L * MIB + 500_000, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, 10 * MIB + 500_000, 10 * MIB + 501_000));
            fixture.awaitQuiet();
            assertThat(client.gets()).as("the large gap was dropped").hasSize(1);
        }
    }

    @Test
    void withNoRoomInTheCacheTheBytesGoStraightToTheCallersBuffers() throws Exception {
        byte[] data = fixture.put("tight", 32 * MIB);
        StreamFactory factory = fixture.factory(
                StreamConfig.builder().set(CACHE_MAX_MEMORY, MIB).build());
        try (SeekableS3InputStream stream = open(factory, "tight")) {
            List<FileRange> ranges = List.of(
                    FileRange.of(0, 3 * MIB), FileRange.of(3L * MIB + 10, 5 * MIB), FileRange.of(20L * MIB, 9 * MIB));
            stream.readVectored(ranges, ByteBuffer::allocateDirect);
            for (FileRange range : ranges) {
                assertHolds(range, data);
            }
        }
        // the bound covers the fetches the reads left in flight too
        fixture.awaitQuiet();
        assertThat(factory.peakCacheMemoryBytes()).isLessThanOrEqualTo(MIB);
    }

    @Test
    void anObjectOverwrittenUnderAPinnedStreamFailsItsRangesAsChanged() throws Exception {
        fixture.put("moving", 4 * MIB);
        try (SeekableS3InputStream stream = open(fixture.factory(), "moving")) {
            client.put(BUCKET, "moving", TestData.bytes(4 * MIB, 99));
            FileRange range = FileRange.of(0, 100);
            stream.readVectored(List.of(range), ByteBuffer::allocate);
            assertThatThrownBy(() -> range.data().get(30, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(ObjectChangedException.class);
        }
    }

    @Test
    void positionedAndVectoredReadsFromManyThreadsOnOneAndManyStreamsReturnTheRightBytes() throws Exception {
        byte[] data = fixture.put("shared", 48 * MIB);
        StreamFactory factory = fixture.factory(
                StreamConfig.builder().set(CACHE_MAX_MEMORY, 24L * MIB).build());
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try (SeekableS3InputStream shared = open(factory, "shared")) {
            List<Future<?>> readers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int seed = t;
                readers.add(threads.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    try (SeekableS3InputStream own = open(factory, "shared")) {
                        for (int i = 0; i < 30; i++) {
                            SeekableS3InputStream stream = random.nextBoolean() ? shared : own;
                            if (random.nextBoolean()) {
                                int length = random.nextInt(1, 2 * MIB);
                                long position = random.nextLong(data.length - length);
                                byte[] buffer = new byte[length];
                                stream.readFully(position, buffer, 0, length);
                                assertThat(buffer)
                                        .isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + length));
                            } else {
                                List<FileRange> ranges = new ArrayList<>();
                                long position = random.nextLong(MIB);
                                while (ranges.size() < 6) {
                                    int length = random.nextInt(1, MIB);
                                    if (position + length > data.length) {
                                        break;
                                    }
                                    ranges.add(FileRange.of(position, length));
                                    position += length + random.nextLong(4L * MIB);
                                }
                                stream.readVectored(ranges, ByteBuffer::allocate);
                                for (FileRange range : ranges) {
                                    assertHolds(range, data);
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> reader : readers) {
                reader.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        // the bound covers the fetches the reads left in flight too
        fixture.awaitQuiet();
        assertThat(factory.peakCacheMemoryBytes()).isLessThanOrEqualTo(24L * MIB);
    }

    @Test
    void aReadWaitingOnTheNetworkDoesNotHoldUpOtherReadsOfTheSameStream() throws Exception {
        byte[] data = fixture.put("parallel", 32 * MIB);
        BodyHold hold = client.holdBodies(
                request -> request.isGet() && request.byteRange().start() == 20L * MIB);
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try (SeekableS3InputStream stream = open(fixture.factory(), "parallel")) {
            Future<byte[]> blocked = threads.submit(() -> {
                byte[] buffer = new byte[100];
                stream.readFully(20L * MIB, buffer, 0, buffer.length);
                return buffer;
            });
            FileRange vectored = FileRange.of(20L * MIB - MIB, 1000);
            assertThat(hold.awaitHeld(1)).isTrue();
            // the positioned read above waits on its body; these must not wait for it
            stream.readVectored(List.of(vectored), ByteBuffer::allocate);
            assertHolds(vectored, data);
            byte[] buffer = new byte[1000];
            stream.readFully(MIB, buffer, 0, buffer.length);
            assertThat(blocked.isDone()).isFalse();
            hold.release();
            assertThat(blocked.get(30, TimeUnit.SECONDS)).isEqualTo(Arrays.copyOfRange(data, 20 * MIB, 20 * MIB + 100));
        } finally {
            hold.release();
            threads.shutdownNow();
            assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void closingTheFactoryAbortsAVectoredReadInFlight() throws Exception {
        fixture.put("aborted", 16 * MIB); // above the small-object size, so the range is one GET
        BodyHold hold = client.holdBodies(Request::isGet);
        StreamFactory factory = fixture.factory();
        SeekableS3InputStream stream = open(factory, "aborted");
        FileRange range = FileRange.of(0, 1000);
        stream.readVectored(List.of(range), ByteBuffer::allocate);
        assertThat(hold.awaitHeld(1)).isTrue();
        factory.close(); // returns once the abort has ended the GET; the hold itself never lets go
        assertThat(hold.closedWhileHeld()).isEqualTo(1);
        // an IOException that says why, never an unchecked CancellationException
        assertThatThrownBy(() -> range.data().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isExactlyInstanceOf(IOException.class)
                .hasMessageContaining("factory is closed")
                .hasMessageContaining("s3://bucket/aborted");
        hold.release();
    }

    /** A factory whose first prefetch is one GET: a window smaller than a part is not cut. */
    private StreamFactory factoryWithOnePartPrefetches() {
        return fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(PREFETCH_INITIAL_SIZE, MIB)
                .build());
    }

    /**
     * Reads 8 KiB at a time over the first MiB, which the hold never catches, then waits until the prefetch
     * those reads started has its body held in flight. (Reading on until a body is held would race the fetch
     * thread: a warm reader can reach the held bytes before their GET is even sent.)
     */
    private static void readUntilAPrefetchIsInFlight(SeekableS3InputStream stream, BodyHold hold) throws Exception {
        byte[] buffer = new byte[8 * KIB];
        while (stream.getPos() + buffer.length <= MIB) {
            stream.read(buffer, 0, buffer.length);
        }
        assertThat(hold.awaitHeld(1))
                .as("a prefetch past the first MiB is in flight")
                .isTrue();
    }

    @Test
    void closingAStreamAbortsItsPrefetchInFlightAndTheBytesAreFetchedAgainWhenNeeded() throws Exception {
        byte[] data = fixture.put("scan", 64 * MIB);
        StreamFactory factory = factoryWithOnePartPrefetches();
        BodyHold hold = client.holdBodies(
                request -> request.isGet() && request.byteRange().start() >= MIB);
        ByteRange prefetched;
        try (SeekableS3InputStream stream = open(factory, "scan")) {
            readUntilAPrefetchIsInFlight(stream, hold);
            prefetched = hold.heldRequests().get(0).byteRange();
        }
        assertThat(hold.awaitClosedWhileHeld(1)).as("the prefetch was aborted").isTrue();
        hold.release();
        // a GET of another prefetch may have started before the close; it lands in the log before it is cleared
        fixture.awaitQuiet();
        client.clearLog();
        try (SeekableS3InputStream stream = open(factory, "scan")) {
            byte[] buffer = new byte[1000];
            stream.readFully(prefetched.start(), buffer, 0, buffer.length);
            assertThat(buffer)
                    .isEqualTo(Arrays.copyOfRange(data, (int) prefetched.start(), (int) prefetched.start() + 1000));
        }
        fixture.awaitQuiet();
        assertThat(client.gets().stream().map(Request::byteRange).filter(range -> range.contains(prefetched.start())))
                .as("the aborted prefetch left nothing cached")
                .hasSize(1);
    }

    @Test
    void aPrefetchAnotherReaderWaitsForOutlivesTheStreamThatStartedIt() throws Exception {
        byte[] data = fixture.put("joined", 64 * MIB);
        StreamFactory factory = factoryWithOnePartPrefetches();
        BodyHold hold = client.holdBodies(
                request -> request.isGet() && request.byteRange().start() >= MIB);
        SeekableS3InputStream scanner = open(factory, "joined");
        readUntilAPrefetchIsInFlight(scanner, hold);
        ByteRange prefetched = hold.heldRequests().get(0).byteRange();
        int getsBefore = client.gets().size();
        try (SeekableS3InputStream other = open(factory, "joined")) {
            FileRange wanted = FileRange.of(prefetched.start() + 10, 1000);
            other.readVectored(List.of(wanted), ByteBuffer::allocate); // joins the prefetch in flight
            scanner.close();
            hold.release();
            assertHolds(wanted, data);
            assertThat(hold.requestsClosedWhileHeld())
                    .doesNotContain(hold.heldRequests().get(0));
        }
        fixture.awaitQuiet();
        assertThat(client.gets().stream()
                        .skip(getsBefore)
                        .map(Request::byteRange)
                        .filter(range -> range.contains(prefetched.start() + 10)))
                .isEmpty();
    }
}
