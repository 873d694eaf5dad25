package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.METADATA_TTL;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How stale a reopened object can be: within {@code metadata.ttl} of learning a version, a new stream may be served
 * that version's cached bytes without a request; past it, the stream learns the version anew and never serves
 * the old one's cached bytes. Time is moved on an injected clock, never waited for.
 */
class FreshnessTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final Duration TTL = Duration.ofSeconds(60);

    private final InMemoryObjectClient client = new InMemoryObjectClient();
    private final MovableClock clock = new MovableClock();
    private final StreamFactory factory = StreamFactory.builder(client)
            .clock(clock)
            .config(StreamConfig.builder()
                    .set(CACHE_MAX_MEMORY, 64L * MIB)
                    .set(METADATA_TTL, TTL)
                    .set(PREFETCH_MAX_SIZE, 0)
                    .build())
            .formatPolicies(java.util.List.of())
            .build();

    @AfterEach
    void close() {
        factory.close();
    }

    /** A clock that stays where the test puts it. */
    private static final class MovableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-11-23T12:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private byte[] readSmall(String key) throws Exception {
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, key))) {
            byte[] bytes = new byte[1000];
            stream.readFully(100, bytes, 0, bytes.length);
            return bytes;
        }
    }

    @Test
    void withinTheTtlCachedBytesOfTheLearnedVersionMayBeServedPastItNever() throws Exception {
        byte[] first = TestData.bytes(2 * MIB, 1);
        client.put(BUCKET, "fresh.bin", first);
        assertThat(readSmall("fresh.bin")).isEqualTo(Arrays.copyOfRange(first, 100, 1100)); // learned and cached
        byte[] second = TestData.bytes(2 * MIB, 2);
        client.put(BUCKET, "fresh.bin", second);
        client.clearLog();

        clock.advance(TTL.minusSeconds(1));
        // within the TTL: the version learned a minute ago, served from the cache with no request at all
        assertThat(readSmall("fresh.bin")).isEqualTo(Arrays.copyOfRange(first, 100, 1100));
        assertThat(client.requests()).isEmpty();

        clock.advance(Duration.ofSeconds(2));
        // past it: learned anew (a GET without If-Match), and only the new version's bytes
        assertThat(readSmall("fresh.bin")).isEqualTo(Arrays.copyOfRange(second, 100, 1100));
        assertThat(client.gets()).first().extracting(Request::ifMatch).isNull();
    }
}
