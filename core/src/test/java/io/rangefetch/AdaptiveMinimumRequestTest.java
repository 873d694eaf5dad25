package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.RETRY_BASE_DELAY;
import static io.rangefetch.StreamConfig.RETRY_MAX_DELAY;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stream's demand requests adapt to whether it reads their padding (see {@code AdaptiveMinimum}): a random
 * reader soon fetches little more than it reads, while a sequential reader, and one that reads its padding through
 * streaming reads served without a plan, keep requests of {@code read.min-request-size}.
 */
class AdaptiveMinimumRequestTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int KIB = 1024;
    private static final int MIB = StreamFixture.MIB;
    private static final int READ = 8 * KIB;
    private static final int MINIMUM = 64 * KIB;

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

    private static StreamConfig.Builder config() {
        return StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(RETRY_BASE_DELAY, Duration.ZERO)
                .set(RETRY_MAX_DELAY, Duration.ZERO);
    }

    private long bytesFetched() {
        fixture.awaitQuiet();
        return client.gets().stream()
                .map(Request::byteRange)
                .mapToLong(ByteRange::length)
                .sum();
    }

    @Test
    void randomPositionedReadsFetchLittleMoreThanTheyReadOnceTheMinimumHasAdapted() throws Exception {
        byte[] data = fixture.put("random.bin", 64 * MIB);
        Random random = new Random(11);
        byte[] buffer = new byte[READ];
        try (SeekableS3InputStream stream = open(fixture.factory(), "random.bin")) {
            for (int i = 0; i < 200; i++) {
                if (i == 40) {
                    assertThat(bytesFetched())
                            .as("the first 40 reads, while the minimum shrinks")
                            .isLessThan(40L * MINIMUM);
                    client.clearLog();
                }
                int position = random.nextInt(data.length - READ);
                stream.readFully(position, buffer, 0, READ);
                assertThat(buffer)
                        .as("read %d at %d", i, position)
                        .isEqualTo(Arrays.copyOfRange(data, position, position + READ));
            }
        }
        long adaptedFetched = bytesFetched();
        long adaptedRead = 160L * READ;
        assertThat(adaptedFetched)
                .as("bytes fetched for %d read once adapted", adaptedRead)
                .isLessThanOrEqualTo(adaptedRead * 3 / 2);
    }

    @Test
    void aSequentialStreamingReaderKeepsRequestsOfTheConfiguredMinimum() throws Exception {
        byte[] data = fixture.put("scan.bin", 64 * MIB);
        assertEveryGetIsAtLeastTheMinimum(fixture.factory(), "scan.bin", data, 16 * MIB);
    }

    @Test
    void aSequentialStreamingReaderWithoutPrefetchKeepsRequestsOfTheConfiguredMinimum() throws Exception {
        // every read is planned and every request padded: the case the adaptive minimum sees most of
        byte[] data = fixture.put("unprefetched.bin", 64 * MIB);
        assertEveryGetIsAtLeastTheMinimum(
                fixture.factory(config().set(PREFETCH_MAX_SIZE, 0).build()), "unprefetched.bin", data, 4 * MIB);
        assertThat(client.gets()).hasSize(4 * MIB / MINIMUM);
    }

    private void assertEveryGetIsAtLeastTheMinimum(StreamFactory factory, String key, byte[] data, int scanned)
            throws Exception {
        byte[] buffer = new byte[READ];
        try (SeekableS3InputStream stream = open(factory, key)) {
            for (int position = 0; position < scanned; position += READ) {
                // a streaming read may hand over what is ready and return short (InputStream's contract): read on
                // until the buffer is full, as a reader does; this test counts the GETs, not the calls
                int count = stream.readNBytes(buffer, 0, READ);
                assertThat(count).isEqualTo(READ);
                assertThat(buffer)
                        .as("read at %d", position)
                        .isEqualTo(Arrays.copyOfRange(data, position, position + READ));
            }
        }
        fixture.awaitQuiet();
        List<ByteRange> gets = client.gets().stream().map(Request::byteRange).toList();
        assertThat(gets)
                .isNotEmpty()
                .allSatisfy(get -> assertThat(get.length()).as("GET %s", get).isGreaterThanOrEqualTo(MINIMUM));
    }

    @Test
    void aStreamingReaderOfStructuresReadingItsPaddingQuietlyKeepsTheConfiguredMinimum() throws Exception {
        // Each 64 KiB structure is read in eight streaming reads: the first is planned (a GET of the minimum), the
        // second makes the stream sequential, and the six after it are served without a plan. Unless the stream
        // counts those six as reads of the padding, it sees 8 of 56 KiB used and shrinks its minimum.
        byte[] data = fixture.put("structures.bin", 64 * MIB);
        // a window large enough that the reads after the second stay short of its refill point, yet small enough
        // that few structures fall inside another's prefetch
        StreamFactory factory = fixture.factory(config().set(PREFETCH_INITIAL_SIZE, 4 * MINIMUM)
                .set(PREFETCH_MAX_SIZE, 4 * MINIMUM)
                .build());
        // one structure per MiB, in random order: no prefetch reaches another structure
        List<Integer> starts = new ArrayList<>();
        for (int start = 0; start < data.length; start += MIB) {
            starts.add(start);
        }
        Collections.shuffle(starts, new Random(12));
        byte[] buffer = new byte[READ];
        try (SeekableS3InputStream stream = open(factory, "structures.bin")) {
            for (int start : starts) {
                stream.seek(start);
                for (int position = start; position < start + MINIMUM; position += READ) {
                    assertThat(stream.read(buffer, 0, READ)).isEqualTo(READ);
                    assertThat(buffer)
                            .as("read at %d", position)
                            .isEqualTo(Arrays.copyOfRange(data, position, position + READ));
                }
            }
        }
        fixture.awaitQuiet();
        List<ByteRange> structureGets = client.gets().stream()
                .map(Request::byteRange)
                .filter(get -> get.start() % MIB == 0)
                .toList();
        assertThat(structureGets)
                .as("a structure's first read sends its own GET")
                .hasSize(starts.size())
                .allSatisfy(get -> assertThat(get.length()).as("GET %s", get).isEqualTo(MINIMUM));
    }
}
