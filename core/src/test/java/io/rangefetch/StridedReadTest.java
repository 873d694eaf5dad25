package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.OpenOptions.ReadPolicy;
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

/**
 * Positioned reads at one stride (an ORC stripe's columns read one by one): once the pattern holds, the reads to
 * come are prefetched, so they stop waiting a first-byte latency each; the gaps between them are not fetched.
 */
class StridedReadTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final int LENGTH = 50_000;
    private static final int STRIDE = 150_000;
    private static final long FIRST = 4L * MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private SeekableS3InputStream open(String key, ReadPolicy policy) {
        return fixture.factory()
                .open(
                        new S3Location(BUCKET, key),
                        OpenOptions.builder()
                                .length(fixture.length(key))
                                .etag(client.etag(BUCKET, key))
                                .readPolicy(policy)
                                .build());
    }

    private static void readStrided(SeekableS3InputStream stream, byte[] data, int from, int to) throws Exception {
        byte[] buffer = new byte[LENGTH];
        for (int i = from; i < to; i++) {
            long position = FIRST + (long) i * STRIDE;
            stream.readFully(position, buffer, 0, LENGTH);
            assertThat(buffer)
                    .as("read %d", i)
                    .isEqualTo(Arrays.copyOfRange(data, (int) position, (int) position + LENGTH));
        }
    }

    @Test
    void readsAfterTheThirdAtOneStrideComeFromPrefetchesOfExactlyTheirBytes() throws Exception {
        byte[] data = fixture.put("stripe.bin", 40 * MIB);
        try (SeekableS3InputStream stream = open("stripe.bin", ReadPolicy.AUTO)) {
            readStrided(stream, data, 0, 3);
            fixture.awaitQuiet();
            assertThat(client.gets())
                    .as("the three reads' own GETs and the predicted reads'")
                    .hasSizeGreaterThan(20);
            readStrided(stream, data, 3, 64);
            assertThat(stream.statistics().cacheMisses())
                    .as("reads that waited for a GET of their own")
                    .isEqualTo(3);
            assertThat(stream.statistics().cacheHits()).isEqualTo(61);
        }
        fixture.awaitQuiet();
        List<ByteRange> gets = client.gets().stream().map(Request::byteRange).toList();
        for (ByteRange get :
                gets.stream().filter(get -> get.start() >= FIRST + 3L * STRIDE).toList()) {
            assertThat((get.start() - FIRST) % STRIDE)
                    .as("a prefetch of %s starts at a read", get)
                    .isZero();
            assertThat(get.length())
                    .as("a prefetch of %s carries one read, no gap", get)
                    .isEqualTo(LENGTH);
        }
        assertThat(gets)
                .doesNotHaveDuplicates()
                .filteredOn(get -> get.start() < FIRST + 3L * STRIDE)
                .hasSize(3);
        long lastReadEnd = FIRST + 63L * STRIDE + LENGTH;
        assertThat(gets.stream().mapToLong(ByteRange::end).max().orElseThrow() - lastReadEnd)
                .as("predicted past the last read: at most the span read across")
                .isLessThanOrEqualTo(lastReadEnd - FIRST);
    }

    @Test
    void aRandomReadPolicyFetchesOnlyWhatEachReadAsks() throws Exception {
        byte[] data = fixture.put("random.bin", 40 * MIB);
        try (SeekableS3InputStream stream = open("random.bin", ReadPolicy.RANDOM)) {
            readStrided(stream, data, 0, 10);
        }
        fixture.awaitQuiet();
        assertThat(client.gets()).hasSize(10);
    }

    @Test
    void closingTheStreamStopsThePredictedReadsInFlight() throws Exception {
        byte[] data = fixture.put("closed.bin", 40 * MIB);
        BodyHold hold = client.holdBodies(
                request -> request.isGet() && request.byteRange().start() >= FIRST + 3L * STRIDE);
        try (SeekableS3InputStream stream = open("closed.bin", ReadPolicy.AUTO)) {
            readStrided(stream, data, 0, 3);
            assertThat(hold.awaitHeld(1)).as("a predicted read was sent").isTrue();
        }
        assertThat(hold.awaitClosedWhileHeld(1))
                .as("the prefetches were aborted")
                .isTrue();
        hold.release();
        fixture.awaitQuiet();
    }
}
