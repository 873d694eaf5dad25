package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.HEDGE_ENABLED;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SeekableS3InputStreamTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int KIB = 1024;
    private static final int MIB = StreamFixture.MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private StreamFactory factory(StreamConfig config) {
        return fixture.factory(config);
    }

    private StreamFactory factory() {
        return fixture.factory();
    }

    private byte[] put(String key, int length) {
        return fixture.put(key, length);
    }

    private static S3Location at(String key) {
        return new S3Location(BUCKET, key);
    }

    private static byte[] readAll(SeekableS3InputStream stream, int chunk) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[chunk];
        int read;
        while ((read = stream.read(buffer, 0, chunk)) >= 0) {
            out.write(buffer, 0, read);
        }
        return out.toByteArray();
    }

    @Test
    void aSmallObjectReadTwiceCostsOneGetAndNoHead() throws IOException {
        byte[] data = put("small", 4 * MIB);
        StreamFactory factory = factory();
        for (int i = 0; i < 2; i++) {
            try (SeekableS3InputStream stream = factory.open(at("small"))) {
                assertThat(readAll(stream, 8 * KIB)).isEqualTo(data);
            }
        }
        fixture.awaitQuiet();
        assertThat(client.gets()).hasSize(1);
        assertThat(client.gets().get(0).byteRange()).isEqualTo(new ByteRange(0, 8L * MIB));
        assertThat(client.count("HEAD")).isZero();
        assertThat(factory.statistics().getRequests()).isEqualTo(1);
        assertThat(factory.statistics().bytesServed()).isEqualTo(2L * data.length);
    }

    @Test
    void aSequentialReadOfALargeObjectRampsUpToParallelGetsWithinTheLimits() throws IOException {
        byte[] data = put("large", 100 * MIB);
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(at("large"))) {
            assertThat(readAll(stream, 8 * KIB)).isEqualTo(data);
        }
        fixture.awaitQuiet();
        List<Request> gets = client.gets();
        for (Request get : gets) {
            ByteRange range = get.byteRange();
            assertThat(range.length()).isLessThanOrEqualTo(8L * MIB);
            assertThat(range.length() >= 64 * KIB || range.end() == data.length).isTrue();
        }
        // every byte fetched once: no request overlaps another
        long fetched = gets.stream().mapToLong(get -> get.byteRange().length()).sum();
        assertThat(fetched).isEqualTo(data.length);
        // the window grows: far fewer GETs than one per 64 KiB, and nearly every byte in a prefetch part of at
        // least what a connection moves in one first-byte latency (2.55 MiB by default)
        assertThat(gets.size()).isLessThan(60);
        assertThat(gets.stream()
                        .mapToLong(get -> get.byteRange().length())
                        .filter(length -> length >= 2_600_000)
                        .sum())
                .isGreaterThan(90L * MIB);
        assertThat(factory.statistics().prefetchedBytes()).isGreaterThan(50L * MIB);
    }

    @Test
    void aFewSmallSequentialReadsLeaveNoMoreThanTheInitialWindowBehind() throws IOException {
        put("short-run", 100 * MIB);
        StreamFactory factory = factory();
        OpenOptions known = OpenOptions.builder()
                .length(100L * MIB)
                .etag(client.etag(BUCKET, "short-run"))
                .build();
        try (SeekableS3InputStream stream = factory.open(at("short-run"), known)) {
            byte[] buffer = new byte[8 * KIB];
            for (int i = 0; i < 6; i++) {
                stream.read(buffer, 0, buffer.length);
            }
            // waits for the prefetch (it joins it) before the close could cancel it
            stream.readFully(4L * MIB - 100, buffer, 0, 100);
        }
        fixture.awaitQuiet();
        // 48 KiB read: one 64 KiB block, then one initial window (4 MiB) of prefetch, and nothing more
        assertThat(client.gets()).hasSize(2);
        long furthest = client.gets().stream()
                .mapToLong(get -> get.byteRange().end())
                .max()
                .orElseThrow();
        assertThat(furthest).isBetween(4L * MIB, 4L * MIB + 64 * KIB);
    }

    @Test
    void randomReadsNeverPrefetchAndFetchAtMostTheMinimumAroundEachRead() throws IOException {
        byte[] data = put("random", 64 * MIB);
        StreamFactory factory = factory();
        SplittableRandom random = new SplittableRandom(7);
        try (SeekableS3InputStream stream = factory.open(
                at("random"), OpenOptions.builder().length(data.length).build())) {
            for (int i = 0; i < 100; i++) {
                long position = random.nextLong(data.length - KIB);
                stream.seek(position);
                byte[] buffer = new byte[KIB];
                int read = stream.read(buffer, 0, KIB);
                assertThat(Arrays.copyOf(buffer, read))
                        .isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + read));
            }
        }
        fixture.awaitQuiet();
        assertThat(client.gets()).hasSizeLessThanOrEqualTo(100);
        client.gets().forEach(get -> assertThat(get.byteRange().length()).isLessThanOrEqualTo(64 * KIB + KIB));
        assertThat(factory.statistics().prefetchedBytes()).isZero();
        assertThat(client.count("HEAD")).isZero();
    }

    @Test
    void backwardAndForwardSeeksAreServedFromFetchedBytes() throws IOException {
        byte[] data = put("seeks", 20 * MIB);
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(at("seeks"))) {
            byte[] buffer = new byte[4 * KIB];
            stream.seek(10 * MIB);
            stream.read(buffer, 0, buffer.length);
            fixture.awaitQuiet();
            int getsAfterFirst = client.gets().size();
            stream.seek(10 * MIB + 100);
            stream.read(buffer, 0, 100);
            stream.seek(10 * MIB + 30 * KIB);
            stream.read(buffer, 0, 1000);
            assertThat(Arrays.copyOf(buffer, 1000))
                    .isEqualTo(Arrays.copyOfRange(data, 10 * MIB + 30 * KIB, 10 * MIB + 30 * KIB + 1000));
            fixture.awaitQuiet();
            assertThat(client.gets()).hasSize(getsAfterFirst);
            assertThat(stream.getPos()).isEqualTo(10 * MIB + 30 * KIB + 1000);
        }
    }

    @Test
    void openingAndReadingNeedsNoHeadButLengthBeforeAnyReadDoes() throws IOException {
        byte[] data = put("head", 3 * MIB);
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(at("head"))) {
            assertThat(stream.length()).isEqualTo(data.length);
            assertThat(client.count("HEAD")).isEqualTo(1);
            assertThat(stream.length()).isEqualTo(data.length);
            assertThat(client.count("HEAD")).isEqualTo(1);
        }
        fixture.awaitQuiet();
        assertThat(client.count("GET")).isZero();
    }

    @Test
    void knownLengthAndEtagAreTakenFromTheOptions() throws IOException {
        byte[] data = put("known", 30 * MIB);
        String etag = client.etag(BUCKET, "known");
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(
                at("known"),
                OpenOptions.builder().length(data.length).etag(etag).build())) {
            assertThat(stream.length()).isEqualTo(data.length);
            byte[] buffer = new byte[100];
            stream.readFully(20 * MIB, buffer, 0, 100);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, 20 * MIB, 20 * MIB + 100));
        }
        fixture.awaitQuiet();
        assertThat(client.count("HEAD")).isZero();
        assertThat(client.gets()).hasSize(1);
        assertThat(client.gets().get(0).ifMatch()).isEqualTo(etag);
        assertThat(client.gets().get(0).byteRange()).isEqualTo(ByteRange.ofLength(20L * MIB, 64 * KIB));
    }

    @Test
    void anUnquotedEtagAsSdkV1GivesItIsTheObjectsOwnNotAChange() throws IOException {
        byte[] data = put("bare-etag", 3 * MIB);
        String quoted = client.etag(BUCKET, "bare-etag");
        String bare = quoted.substring(1, quoted.length() - 1);
        assertThat(OpenOptions.builder().etag(bare).build().etag()).contains(quoted);
        assertThat(OpenOptions.builder().etag(quoted).build().etag()).contains(quoted);
        assertThat(OpenOptions.builder().etag("W/" + quoted).build().etag()).contains("W/" + quoted);
        try (SeekableS3InputStream stream = factory()
                .open(
                        at("bare-etag"),
                        OpenOptions.builder().length(data.length).etag(bare).build())) {
            byte[] read = new byte[data.length];
            stream.readFully(0, read, 0, read.length);
            assertThat(read).isEqualTo(data);
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .isNotEmpty()
                .allSatisfy(get -> assertThat(get.ifMatch()).isEqualTo(quoted));
    }

    @Test
    void everyGetAfterTheFirstCarriesIfMatch() throws IOException {
        put("ifmatch", 40 * MIB);
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(at("ifmatch"))) {
            readAll(stream, 64 * KIB);
        }
        fixture.awaitQuiet();
        List<Request> gets = client.gets();
        assertThat(gets.get(0).ifMatch()).isNull();
        gets.subList(1, gets.size())
                .forEach(get -> assertThat(get.ifMatch()).isEqualTo(client.etag(BUCKET, "ifmatch")));
    }

    @Test
    void positionedReadsLeaveThePositionAloneAndFetchOnlyWhatTheyNeed() throws IOException {
        byte[] data = put("positioned", 50 * MIB);
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(
                at("positioned"), OpenOptions.builder().length(data.length).build())) {
            stream.seek(5);
            byte[] buffer = new byte[10];
            stream.readFully(40 * MIB, buffer, 0, 10);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, 40 * MIB, 40 * MIB + 10));
            assertThat(stream.getPos()).isEqualTo(5);
            byte[] big = new byte[20 * MIB];
            stream.readFully(MIB, big, 0, big.length);
            assertThat(big).isEqualTo(Arrays.copyOfRange(data, MIB, 21 * MIB));
        }
        fixture.awaitQuiet();
        List<Request> gets = client.gets();
        assertThat(gets.get(0).byteRange()).isEqualTo(ByteRange.ofLength(40L * MIB, 64 * KIB));
        // 20 MiB are cut into three even parts of at most 8 MiB
        assertThat(gets.subList(1, gets.size()))
                .extracting(Request::byteRange)
                .extracting(ByteRange::length)
                .containsOnly(20L * MIB / 3 + 1, 20L * MIB / 3);
        assertThat(gets).hasSize(4);
    }

    @Test
    void concurrentPositionedReadsFromManyThreadsAreCorrect() throws Exception {
        byte[] data = put("concurrent", 32 * MIB);
        // hedging off: on a loaded machine a first byte may come late, and a hedge is a second GET of the same bytes
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(HEDGE_ENABLED, false)
                .build());
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try (SeekableS3InputStream stream = factory.open(at("concurrent"))) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                long seed = t;
                results.add(threads.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    for (int i = 0; i < 200; i++) {
                        int length = 1 + random.nextInt(300 * KIB);
                        long position = random.nextLong(data.length - length);
                        byte[] buffer = new byte[length];
                        stream.readFully(position, buffer, 0, length);
                        if (!Arrays.equals(buffer, Arrays.copyOfRange(data, (int) position, (int) position + length))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get()).isTrue();
            }
        } finally {
            threads.shutdownNow();
        }
        fixture.awaitQuiet();
        long fetched = client.gets().stream()
                .mapToLong(get -> get.byteRange().length())
                .sum();
        assertThat(fetched)
                .as("concurrent readers share GETs instead of fetching bytes twice")
                .isLessThanOrEqualTo(data.length);
    }

    @Test
    void readTailFetchesTheTailInOneSuffixRequest() throws IOException {
        byte[] data = put("tail", 30 * MIB);
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(at("tail"))) {
            byte[] tail = new byte[8];
            assertThat(stream.readTail(tail, 0, 8)).isEqualTo(8);
            assertThat(tail).isEqualTo(Arrays.copyOfRange(data, data.length - 8, data.length));
            assertThat(stream.length()).isEqualTo(data.length);
            byte[] footer = new byte[1000];
            stream.readFully(data.length - 1000, footer, 0, 1000);
            assertThat(footer).isEqualTo(Arrays.copyOfRange(data, data.length - 1000, data.length));
            assertThat(stream.getPos()).isZero();
        }
        fixture.awaitQuiet();
        assertThat(client.requests()).hasSize(1);
        assertThat(client.requests().get(0).range()).isEqualTo("bytes=-65536");
    }

    @Test
    void badPositionsFailClearly() throws IOException {
        byte[] data = put("edges", 100 * KIB);
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(at("edges"))) {
            assertThatThrownBy(() -> stream.seek(-1))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("negative");
            stream.seek(200 * KIB); // length unknown: accepted, no request
            fixture.awaitQuiet();
            assertThat(client.requests()).isEmpty();
            assertThatThrownBy(stream::read).isInstanceOf(EOFException.class).hasMessageContaining("past the end");
            stream.seek(data.length);
            assertThat(stream.read()).isEqualTo(-1);
            assertThatThrownBy(() -> stream.seek(data.length + 1)).isInstanceOf(EOFException.class);
            assertThatThrownBy(() -> stream.readFully(data.length - 10, new byte[11], 0, 11))
                    .isInstanceOf(EOFException.class);
            assertThatThrownBy(() -> stream.readFully(-1, new byte[1], 0, 1)).isInstanceOf(EOFException.class);
            stream.seek(data.length - 1);
            assertThat(stream.read()).isEqualTo(data[data.length - 1] & 0xff);
            assertThat(stream.read()).isEqualTo(-1);
        }
    }

    @Test
    void readingAfterCloseFails() throws IOException {
        put("closed", 10);
        SeekableS3InputStream stream = factory().open(at("closed"));
        stream.close();
        stream.close();
        assertThatThrownBy(stream::read).isInstanceOf(IOException.class).hasMessageContaining("closed");
    }

    @Test
    void aMissingObjectIsFileNotFound() {
        StreamFactory factory = factory();
        SeekableS3InputStream stream = factory.open(at("missing"));
        assertThatThrownBy(stream::read).isInstanceOf(FileNotFoundException.class);
        assertThatThrownBy(stream::length).isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void anEmptyObjectReadsAsEmpty() throws IOException {
        client.put(BUCKET, "empty", new byte[0]);
        try (SeekableS3InputStream stream = factory().open(at("empty"))) {
            assertThat(stream.read()).isEqualTo(-1);
            assertThat(stream.length()).isZero();
            assertThat(stream.readTail(new byte[4], 0, 4)).isZero();
        }
    }

    @Test
    void anObjectChangedBeforeAnyByteWasServedIsReadInItsNewVersion() throws IOException {
        put("moves", 20 * MIB);
        StreamFactory factory = factory();
        try (SeekableS3InputStream stream = factory.open(at("moves"))) {
            stream.read(new byte[10], 0, 10); // learns the ETag, caches it for the factory
        }
        byte[] newer = TestData.bytes(20 * MIB, 99);
        client.put(BUCKET, "moves", newer);
        try (SeekableS3InputStream stream = factory.open(at("moves"))) {
            byte[] buffer = new byte[100];
            stream.readFully(15 * MIB, buffer, 0, 100);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(newer, 15 * MIB, 15 * MIB + 100));
        }
    }

    @Test
    void anObjectChangedAfterBytesWereServedFailsTheNextGetAndNeverMixesVersions() throws IOException {
        byte[] original = put("changes", 40 * MIB);
        StreamFactory factory = factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(PREFETCH_MAX_SIZE, 0)
                .build());
        String oldEtag = client.etag(BUCKET, "changes");
        try (SeekableS3InputStream stream = factory.open(at("changes"))) {
            byte[] buffer = new byte[KIB];
            stream.readFully(0, buffer, 0, KIB);
            assertThat(buffer).isEqualTo(Arrays.copyOf(original, KIB));
            String newEtag = client.put(BUCKET, "changes", TestData.bytes(40 * MIB, 5));
            assertThatThrownBy(() -> stream.readFully(30 * MIB, buffer, 0, KIB))
                    .isInstanceOfSatisfying(ObjectChangedException.class, e -> {
                        assertThat(e.expectedEtag()).isEqualTo(oldEtag);
                        assertThat(e.currentEtag()).isEqualTo(newEtag);
                        assertThat(e.getMessage()).contains("s3://bucket/changes");
                    });
            // bytes cached from the old version are dropped, never served beside new ones
            assertThatThrownBy(() -> stream.readFully(0, buffer, 0, KIB)).isInstanceOf(ObjectChangedException.class);
        }
    }

    @Test
    void anEtagGivenByTheCallerIsNeverSilentlyReplaced() throws IOException {
        put("pinned", MIB);
        String oldEtag = client.etag(BUCKET, "pinned");
        client.put(BUCKET, "pinned", TestData.bytes(MIB, 3));
        try (SeekableS3InputStream stream =
                factory().open(at("pinned"), OpenOptions.builder().etag(oldEtag).build())) {
            assertThatThrownBy(stream::read).isInstanceOf(ObjectChangedException.class);
        }
    }

    @Test
    void theMemoryBudgetHoldsAndDemandReadsStillSucceedWhenItIsTiny() throws IOException {
        byte[] data = put("budget", 24 * MIB);
        StreamFactory factory =
                factory(StreamConfig.builder().set(CACHE_MAX_MEMORY, MIB).build());
        try (SeekableS3InputStream stream = factory.open(at("budget"))) {
            assertThat(readAll(stream, 256 * KIB)).isEqualTo(data);
            byte[] big = new byte[3 * MIB];
            stream.readFully(5 * MIB, big, 0, big.length);
            assertThat(big).isEqualTo(Arrays.copyOfRange(data, 5 * MIB, 8 * MIB));
        }
        // the bound covers the fetches the reads left in flight too
        fixture.awaitQuiet();
        assertThat(factory.peakCacheMemoryBytes()).isLessThanOrEqualTo(MIB);
    }

    @Test
    void closingTheFactoryStopsItsThreadsAndFailsLaterReads() throws Exception {
        put("threads", 40 * MIB);
        // not the fixture's: only a factory that owns its executor starts (and must stop) threads of its own
        StreamFactory factory = StreamFactory.create(
                client, StreamConfig.builder().set(CACHE_MAX_MEMORY, 128L * MIB).build());
        SeekableS3InputStream stream = factory.open(at("threads"));
        stream.readFully(20 * MIB, new byte[12 * MIB], 0, 12 * MIB); // two parts, fetched on the factory's threads
        assertThat(fetchThreads()).isNotEmpty();
        factory.close();
        assertThat(fetchThreads()).isEmpty();
        assertThatThrownBy(() -> stream.read(new byte[10], 0, 10))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("factory is closed");
        assertThat(factory.cacheMemoryBytes()).isZero();
    }

    private static List<Thread> fetchThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("rangefetch-fetch-") && thread.isAlive())
                .toList();
    }
}
