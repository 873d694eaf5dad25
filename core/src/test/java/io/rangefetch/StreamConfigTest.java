package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamConfigTest {
    private static final String PREFIX = "rangefetch.";

    @Test
    void defaultsArePinned() {
        StreamConfig config = StreamConfig.defaults();
        assertThat(config.minRequestSize()).isEqualTo(64 * 1024);
        assertThat(config.maxRequestSize()).isEqualTo(8 * 1024 * 1024);
        assertThat(config.smallObjectSize()).isEqualTo(8 * 1024 * 1024);
        assertThat(config.sequentialReads()).isEqualTo(2);
        assertThat(config.prefetchInitialSize()).isEqualTo(4 * 1024 * 1024);
        assertThat(config.prefetchMaxSize()).isEqualTo(64 * 1024 * 1024);
        assertThat(config.cacheMaxMemory()).isEqualTo(Runtime.getRuntime().maxMemory() / 10);
        assertThat(config.metadataTtl()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.metadataMaxEntries()).isEqualTo(10_000);
        assertThat(config.fetchMaxConcurrency()).isEqualTo(16);
    }

    @Test
    void everyKeyParsesFromPropertiesWithUnits() {
        StreamConfig config = StreamConfig.fromProperties(Map.ofEntries(
                Map.entry("rangefetch.read.min-request-size", "128KiB"),
                Map.entry("rangefetch.read.max-request-size", "16MB"),
                Map.entry("rangefetch.read.small-object-size", "1m"),
                Map.entry("rangefetch.prefetch.sequential-reads", "3"),
                Map.entry("rangefetch.prefetch.initial-size", "2MiB"),
                Map.entry("rangefetch.prefetch.max-size", "1GiB"),
                Map.entry("rangefetch.cache.max-memory", "512MiB"),
                Map.entry("rangefetch.metadata.ttl", "30s"),
                Map.entry("rangefetch.metadata.max-entries", "100"),
                Map.entry("rangefetch.fetch.max-concurrency", "32"),
                Map.entry("other.setting", "ignored")), PREFIX);
        assertThat(config.minRequestSize()).isEqualTo(128 * 1024);
        assertThat(config.maxRequestSize()).isEqualTo(16 * 1024 * 1024);
        assertThat(config.smallObjectSize()).isEqualTo(1024 * 1024);
        assertThat(config.sequentialReads()).isEqualTo(3);
        assertThat(config.prefetchInitialSize()).isEqualTo(2 * 1024 * 1024);
        assertThat(config.prefetchMaxSize()).isEqualTo(1L << 30);
        assertThat(config.cacheMaxMemory()).isEqualTo(512L << 20);
        assertThat(config.metadataTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.metadataMaxEntries()).isEqualTo(100);
        assertThat(config.fetchMaxConcurrency()).isEqualTo(32);
        assertThat(StreamConfig.keys()).hasSize(10);
    }

    @Test
    void cacheMemoryAcceptsAPercentageOfTheHeap() {
        StreamConfig config = StreamConfig.fromProperties(Map.of("rangefetch.cache.max-memory", "25%"), PREFIX);
        assertThat(config.cacheMaxMemory()).isEqualTo((long) (Runtime.getRuntime().maxMemory() * 25.0 / 100));
    }

    @Test
    void anUnknownKeyUnderThePrefixFailsWithTheKey() {
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.read.min-size", "1"), PREFIX))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rangefetch.read.min-size")
                .hasMessageContaining("read.min-request-size");
    }

    @Test
    void anUnparsableValueFailsWithTheKeyAndTheValue() {
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.read.max-request-size", "8 parsecs"), PREFIX))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rangefetch.read.max-request-size")
                .hasMessageContaining("8 parsecs");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.metadata.ttl", "30"), PREFIX))
                .hasMessageContaining("rangefetch.metadata.ttl").hasMessageContaining("'30'");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.fetch.max-concurrency", "many"), PREFIX))
                .hasMessageContaining("many");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.cache.max-memory", "95%"), PREFIX))
                .hasMessageContaining("95%");
    }

    @Test
    void anOutOfRangeValueFailsWithTheKeyAndTheValue() {
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.fetch.max-concurrency", "0"), PREFIX))
                .hasMessageContaining("rangefetch.fetch.max-concurrency=0");
        assertThatThrownBy(() -> StreamConfig.builder().minRequestSize(1 << 20).maxRequestSize(1 << 20).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("read.max-request-size (1048576)");
        assertThatThrownBy(() -> StreamConfig.builder().maxRequestSize(2L << 30).build())
                .hasMessageContaining("1GiB");
        assertThatThrownBy(() -> StreamConfig.builder().prefetchInitialSize(32 << 20).prefetchMaxSize(16 << 20).build())
                .hasMessageContaining("prefetch.max-size");
        assertThatThrownBy(() -> StreamConfig.builder().metadataTtl(Duration.ofSeconds(-1)))
                .hasMessageContaining("metadata.ttl");
    }

    @Test
    void aSettingGivenTwiceIsRefused() {
        assertThatThrownBy(() -> StreamConfig.builder().minRequestSize(1024).minRequestSize(2048))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("read.min-request-size");
    }
}
