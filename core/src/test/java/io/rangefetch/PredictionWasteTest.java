package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.S3Location;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.StreamFixture;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Predictions answer for what they waste: a pattern no prediction fits costs at most 1.5× the bytes it reads (plus
 * the first windows it takes to tell), on any key; the next stream of the same file starts where the last left off;
 * a table whose small objects are read a little each stops having them read whole; and a small object is cut into
 * parallel parts only while connections are idle.
 */
class PredictionWasteTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final int KIB = 1024;
    /** What the default settings allow before any byte is read (one initial window) and one window in flight. */
    private static final long SLACK = 2 * 4L * MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private SeekableS3InputStream open(StreamFactory factory, String key) {
        return factory.open(
                new S3Location(BUCKET, key),
                OpenOptions.builder()
                        .length(fixture.length(key))
                        .etag(client.etag(BUCKET, key))
                        .build());
    }

    private long fetched() {
        fixture.awaitQuiet();
        return client.gets().stream().mapToLong(get -> get.byteRange().length()).sum();
    }

    /**
     * Two small streaming reads in a row, then a jump, again and again (a page header and its page, read one
     * structure after another of a format nothing recognizes): each pair looks like the start of a scan.
     */
    private static long readPairsAndJump(SeekableS3InputStream stream, byte[] data, int pairs, long seed)
            throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] buffer = new byte[8 * KIB];
        long read = 0;
        for (int i = 0; i < pairs; i++) {
            long position = random.nextLong(data.length - 2L * buffer.length);
            stream.seek(position);
            for (int j = 0; j < 2; j++) {
                assertThat(stream.readNBytes(buffer, 0, buffer.length)).isEqualTo(buffer.length);
                assertThat(buffer)
                        .isEqualTo(Arrays.copyOfRange(
                                data, (int) position + j * buffer.length, (int) position + (j + 1) * buffer.length));
                read += buffer.length;
            }
        }
        return read;
    }

    @Test
    void aRampThatKeepsBeingLeftBehindBacksOffWithinTheBound() throws Exception {
        byte[] data = fixture.put("pairs", 256 * MIB);
        long read;
        try (SeekableS3InputStream stream = open(fixture.factory(), "pairs")) {
            read = readPairsAndJump(stream, data, 400, 7);
        }
        long fetched = fetched();
        assertThat(fetched).as("fetched for %,d bytes read", read).isLessThanOrEqualTo((long) (1.5 * read) + SLACK);
    }

    @Test
    void aStrideThatKeepsBreakingBacksOffWithinTheBound() throws Exception {
        byte[] data = fixture.put("strides.orc", 256 * MIB);
        SplittableRandom random = new SplittableRandom(11);
        byte[] buffer = new byte[8 * KIB];
        long read = 0;
        try (SeekableS3InputStream stream = open(fixture.factory(), "strides.orc")) {
            for (int run = 0; run < 200; run++) {
                // three reads at one stride make a pattern, then the reader goes elsewhere
                long start = random.nextLong(data.length - 4L * MIB);
                for (int i = 0; i < 3; i++) {
                    long position = start + i * 100_000L;
                    stream.readFully(position, buffer, 0, buffer.length);
                    assertThat(buffer)
                            .isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + buffer.length));
                    read += buffer.length;
                }
            }
        }
        long fetched = fetched();
        assertThat(fetched).as("fetched for %,d bytes read", read).isLessThanOrEqualTo((long) (1.5 * read) + SLACK);
    }

    @Test
    void aScanIsNeverHeldBack() throws Exception {
        byte[] data = fixture.put("scan", 64 * MIB);
        byte[] buffer = new byte[64 * KIB];
        try (SeekableS3InputStream stream = open(fixture.factory(), "scan")) {
            for (int at = 0; at < data.length; at += buffer.length) {
                assertThat(stream.readNBytes(buffer, 0, buffer.length)).isEqualTo(buffer.length);
            }
            assertThat(stream.statistics().cacheMisses())
                    .as("reads that waited for a GET of their own")
                    .isLessThanOrEqualTo(2);
        }
        assertThat(fetched()).isEqualTo(data.length);
    }

    @Test
    void theNextStreamOfAFileStartsWhereTheLastLeftOff() throws Exception {
        byte[] data = fixture.put("again", 256 * MIB);
        StreamFactory factory = fixture.factory();
        try (SeekableS3InputStream stream = open(factory, "again")) {
            readPairsAndJump(stream, data, 200, 3);
        }
        fetched();
        client.clearLog();
        long read;
        try (SeekableS3InputStream stream = open(factory, "again")) {
            read = readPairsAndJump(stream, data, 20, 5);
        }
        assertThat(fetched())
                .as("a stream that inherits the waste predicts nothing: its reads' own GETs only")
                .isLessThanOrEqualTo(20 * 64L * KIB + read);
    }

    @Test
    void aTableWhoseSmallObjectsAreReadALittleEachStopsReadingThemWhole() throws Exception {
        StreamFactory factory = fixture.factory();
        byte[] buffer = new byte[8 * KIB];
        for (int i = 0; i < 12; i++) {
            String key = "lookups/part-" + i;
            byte[] data = fixture.put(key, 4 * MIB);
            try (SeekableS3InputStream stream = open(factory, key)) {
                stream.readFully(MIB, buffer, 0, buffer.length);
                assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, MIB, MIB + buffer.length));
            }
            if (i == 0) {
                assertThat(fetched()).as("the first is read whole").isEqualTo(4L * MIB);
            }
        }
        fetched();
        byte[] data = fixture.put("lookups/part-21", 4 * MIB);
        client.clearLog();
        try (SeekableS3InputStream stream = open(factory, "lookups/part-21")) {
            stream.readFully(MIB, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, MIB, MIB + buffer.length));
        }
        assertThat(fetched())
                .as("after 8 objects read a little each, only what is asked (and the padding)")
                .isLessThanOrEqualTo(64L * KIB);
        byte[] other = fixture.put("other/part-0", 4 * MIB);
        client.clearLog();
        try (SeekableS3InputStream stream = open(factory, "other/part-0")) {
            stream.readFully(MIB, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(other, MIB, MIB + buffer.length));
        }
        assertThat(fetched())
                .as("another table's small objects are still read whole")
                .isEqualTo(4L * MIB);
    }

    @Test
    void aSmallObjectIsCutIntoPartsOnlyWhileConnectionsAreIdle() throws Exception {
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(FETCH_MAX_CONCURRENCY, 8)
                .build());
        byte[] idle = fixture.put("idle.bin", 2 * MIB);
        try (SeekableS3InputStream stream = open(factory, "idle.bin")) {
            byte[] buffer = new byte[100];
            stream.readFully(0, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOf(idle, 100));
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .as("an idle factory: the 2 MiB in parts of 512 KiB")
                .hasSize(4);
        client.clearLog();

        fixture.put("busy.bin", 64 * MIB);
        byte[] small = fixture.put("small.bin", 2 * MIB);
        BodyHold held =
                client.holdBodies(request -> request.isGet() && request.key().equals("busy.bin"));
        try (SeekableS3InputStream busy = open(factory, "busy.bin");
                SeekableS3InputStream stream = open(factory, "small.bin")) {
            // six GETs of another stream hold six of the eight slots
            busy.prefetch(java.util.stream.IntStream.range(0, 6)
                    .mapToObj(i -> io.rangefetch.client.ByteRange.ofLength(i * 8L * MIB, MIB))
                    .toList());
            assertThat(held.awaitHeld(6)).isTrue();
            byte[] buffer = new byte[100];
            stream.readFully(0, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOf(small, 100));
        } finally {
            held.release();
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .filteredOn(get -> get.key().equals("small.bin"))
                .as("two of eight slots were free: one GET, of %s", client.gets())
                .hasSize(1);
    }

    @Test
    void streamsOpenAtOnceShareTheIdleConnectionsSoEachSmallObjectIsOneGet() throws Exception {
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(FETCH_MAX_CONCURRENCY, 8)
                .build());
        byte[] small = fixture.put("shared/small.bin", 2 * MIB);
        fixture.put("shared/a.bin", 2 * MIB);
        fixture.put("shared/b.bin", 2 * MIB);
        byte[] buffer = new byte[100];
        // three other streams are open, reading nothing now (their tasks decode what they read)
        SeekableS3InputStream a = open(factory, "shared/a.bin");
        SeekableS3InputStream b = open(factory, "shared/b.bin");
        SeekableS3InputStream c = open(factory, "shared/a.bin");
        try (SeekableS3InputStream stream = open(factory, "shared/small.bin")) {
            stream.readFully(0, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOf(small, 100));
        } finally {
            a.close();
            b.close();
            c.close();
            c.close(); // closing twice frees its share once
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .as("four streams share eight idle slots: one GET")
                .hasSize(1);
        client.clearLog();

        byte[] alone = fixture.put("shared/alone.bin", 2 * MIB);
        try (SeekableS3InputStream stream = open(factory, "shared/alone.bin")) {
            stream.readFully(MIB, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(alone, MIB, MIB + 100));
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .as("the others closed: a lone stream cuts it in parts again")
                .hasSize(4);
    }
}
