package io.rangefetch.internal.format;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TextFormatPolicyTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int KIB = 1024;
    private static final int MIB = StreamFixture.MIB;
    private static final StreamConfig CONFIG =
            StreamConfig.builder().set(CACHE_MAX_MEMORY, 256L * MIB).build();
    private static final long MIN_REQUEST = CONFIG.get(MIN_REQUEST_SIZE);

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private SeekableS3InputStream open(String key, OpenOptions options) {
        return fixture.factory(CONFIG, List.of(new TextFormatPolicy())).open(new S3Location(BUCKET, key), options);
    }

    private OpenOptions.Builder known(String key) {
        return OpenOptions.builder().length(fixture.length(key)).etag(client.etag(BUCKET, key));
    }

    /** Streams from the start to {@code end}, then a few reads past it, checking every byte; returns the end. */
    private static long readThrough(SeekableS3InputStream stream, byte[] data, long end) throws Exception {
        byte[] buffer = new byte[64 * KIB];
        long position = 0;
        int pastEnd = 0;
        while (pastEnd < 3) {
            int read = stream.read(buffer, 0, position < end ? buffer.length : 1000);
            assertThat(read).isPositive();
            assertThat(Arrays.copyOf(buffer, read))
                    .isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + read));
            position += read;
            if (position > end) {
                pastEnd++;
            }
        }
        return position;
    }

    private void assertSplitBoundsEveryGet(boolean versionKnown) throws Exception {
        byte[] data = fixture.put("split.csv", 16 * MIB);
        long splitEnd = 3L * MIB + 12_345;
        OpenOptions.Builder options = versionKnown ? known("split.csv") : OpenOptions.builder();
        long readEnd;
        try (SeekableS3InputStream stream =
                open("split.csv", options.split(0, splitEnd).build())) {
            readEnd = readThrough(stream, data, splitEnd);
        }
        fixture.awaitQuiet();
        List<Request> gets = client.gets();
        assertThat(gets)
                .extracting(Request::byteRange)
                .allSatisfy(range -> assertThat(range.end())
                        .as("%s", gets)
                        .isLessThanOrEqualTo(Math.max(splitEnd, readEnd) + MIN_REQUEST));
        long requested =
                gets.stream().mapToLong(get -> get.byteRange().length()).sum();
        assertThat(requested).as("every byte is fetched once").isLessThanOrEqualTo(readEnd + MIN_REQUEST);
    }

    @Test
    void aSplitsEndBoundsPrefetchWhenTheVersionIsKnown() throws Exception {
        assertSplitBoundsEveryGet(true);
    }

    @Test
    void aSplitsEndBoundsPrefetchWhenTheFirstReadLearnsTheVersion() throws Exception {
        assertSplitBoundsEveryGet(false);
    }

    @Test
    void aCsvPrefetchesFromItsFirstStreamingRead() throws Exception {
        byte[] data = fixture.put("scan.csv", 64 * MIB);
        BodyHold seen = client.holdBodies(request -> true);
        seen.release(); // holds nothing: it only counts the GETs
        try (SeekableS3InputStream stream = open("scan.csv", known("scan.csv").build())) {
            byte[] first = new byte[100];
            assertThat(stream.read(first)).isEqualTo(100);
            assertThat(first).isEqualTo(Arrays.copyOf(data, 100));
            assertThat(seen.awaitHeld(2)).as("a prefetch was sent").isTrue();
        }
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .contains(new ByteRange(0, MIN_REQUEST))
                .anySatisfy(range -> assertThat(range.start()).isGreaterThanOrEqualTo(MIN_REQUEST));
    }

    @Test
    void anObjectWithoutAPolicyDoesNotPrefetchOnItsFirstRead() throws Exception {
        byte[] data = fixture.put("scan.bin", 64 * MIB);
        try (SeekableS3InputStream stream = open("scan.bin", known("scan.bin").build())) {
            byte[] first = new byte[100];
            assertThat(stream.read(first)).isEqualTo(100);
            assertThat(first).isEqualTo(Arrays.copyOf(data, 100));
        }
        fixture.awaitQuiet();
        assertThat(client.gets()).extracting(Request::byteRange).containsExactly(new ByteRange(0, MIN_REQUEST));
    }

    @Test
    void aPositionedReadOfACsvFetchesOnlyItsRangeGrownToTheMinimum() throws Exception {
        byte[] data = fixture.put("lookup.csv", 64 * MIB);
        try (SeekableS3InputStream stream =
                open("lookup.csv", known("lookup.csv").build())) {
            fixture.awaitQuiet();
            assertThat(client.requests())
                    .as("opening a text object sends nothing")
                    .isEmpty();
            byte[] bytes = new byte[100];
            stream.readFully(5L * MIB, bytes, 0, bytes.length);
            assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, 5 * MIB, 5 * MIB + 100));
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .containsExactly(ByteRange.ofLength(5L * MIB, MIN_REQUEST));
    }
}
