package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.ManualTime;
import io.rangefetch.testing.TestData;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A factory's one time source, as its builder takes it: a ticker (or a clock read as one) and a scheduler. The
 * metadata's freshness follows the ticker; the builder refuses two tickers and a scheduler that is the fetch
 * executor. Time is moved by hand, never waited for.
 */
class StreamFactoryTimeTest {
    private static final String BUCKET = "bucket";
    private static final int MIB = 1024 * 1024;
    private static final Duration TTL = Duration.ofSeconds(60);

    private final InMemoryObjectClient client = new InMemoryObjectClient();
    private final ManualTime time = new ManualTime();

    @Test
    void metadataFreshnessIsMeasuredOnTheFactorysTicker() throws Exception {
        byte[] first = TestData.bytes(2 * MIB, 1);
        client.put(BUCKET, "fresh.bin", first);
        try (StreamFactory factory = StreamFactory.builder(client)
                .ticker(time.ticker())
                .scheduler(time.scheduler())
                .config(StreamConfig.builder()
                        .set(StreamConfig.CACHE_MAX_MEMORY, 64L * MIB)
                        .set(StreamConfig.METADATA_TTL, TTL)
                        .set(StreamConfig.PREFETCH_MAX_SIZE, 0L)
                        .build())
                .formatPolicies(List.of())
                .build()) {
            assertThat(readSmall(factory)).isEqualTo(Arrays.copyOfRange(first, 100, 1100));
            byte[] second = TestData.bytes(2 * MIB, 2);
            client.put(BUCKET, "fresh.bin", second);

            time.advance(TTL.minusSeconds(1));
            assertThat(readSmall(factory)).as("within the TTL").isEqualTo(Arrays.copyOfRange(first, 100, 1100));
            time.advance(Duration.ofSeconds(2));
            assertThat(readSmall(factory)).as("past it").isEqualTo(Arrays.copyOfRange(second, 100, 1100));
        }
    }

    @Test
    void theBuilderTakesOneTickerAndASchedulerApartFromTheFetchExecutor() {
        assertThatThrownBy(() ->
                        StreamFactory.builder(client).ticker(time.ticker()).clock(Clock.systemUTC()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ticker(...)")
                .hasMessageContaining("clock(...)");
        assertThatThrownBy(() -> StreamFactory.builder(client)
                        .executor(time.scheduler())
                        .scheduler(time.scheduler())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scheduler must not be the fetch executor");
    }

    private static byte[] readSmall(StreamFactory factory) throws Exception {
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "fresh.bin"))) {
            byte[] bytes = new byte[1000];
            stream.readFully(100, bytes, 0, bytes.length);
            return bytes;
        }
    }
}
