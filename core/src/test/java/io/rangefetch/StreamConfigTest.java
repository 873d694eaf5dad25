package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
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
        assertThat(config.smallObjectPartSize()).isEqualTo(512 * 1024);
        assertThat(config.prefetchInitialSize()).isEqualTo(4 * 1024 * 1024);
        assertThat(config.prefetchMaxSize()).isEqualTo(64 * 1024 * 1024);
        assertThat(config.cacheMaxMemory()).isEqualTo(Runtime.getRuntime().maxMemory() / 10);
        assertThat(config.metadataTtl()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.metadataMaxEntries()).isEqualTo(10_000);
        assertThat(config.fetchMaxConcurrency()).isEqualTo(16);
        assertThat(config.firstByteLatency()).isEqualTo(Duration.ofMillis(30));
        assertThat(config.connectionBandwidth()).isEqualTo(85L * 1024 * 1024);
        // latency × bandwidth = 0.030 s × 89,128,960 B/s
        assertThat(config.vectoredMinSeek()).isEqualTo(2_673_868);
        // four round trips' worth, above the 8 MiB maximum request
        assertThat(config.vectoredMaxMergedSize()).isEqualTo(10_695_475);
        assertThat(config.vectoredDiscardTolerance()).isEqualTo(0.25);
    }

    @Test
    void everyKeyParsesFromPropertiesWithUnits() {
        StreamConfig config = StreamConfig.fromProperties(Map.ofEntries(
                Map.entry("rangefetch.read.min-request-size", "128KiB"),
                Map.entry("rangefetch.read.max-request-size", "16MB"),
                Map.entry("rangefetch.read.small-object-size", "1m"),
                Map.entry("rangefetch.read.small-object-part-size", "256KiB"),
                Map.entry("rangefetch.prefetch.sequential-reads", "3"),
                Map.entry("rangefetch.prefetch.initial-size", "2MiB"),
                Map.entry("rangefetch.prefetch.max-size", "1GiB"),
                Map.entry("rangefetch.cache.max-memory", "512MiB"),
                Map.entry("rangefetch.metadata.ttl", "30s"),
                Map.entry("rangefetch.metadata.max-entries", "100"),
                Map.entry("rangefetch.fetch.max-concurrency", "32"),
                Map.entry("rangefetch.network.first-byte-latency", "50ms"),
                Map.entry("rangefetch.network.connection-bandwidth", "100MB/s"),
                Map.entry("rangefetch.vectored.min-seek", "1MiB"),
                Map.entry("rangefetch.vectored.max-merged-size", "32MB"),
                Map.entry("rangefetch.vectored.discard-tolerance", "50%"),
                Map.entry("rangefetch.format.extensions", "parquet:.PARQUET,pq ; orc:orc;text:csv"),
                Map.entry("rangefetch.format.compressed-extensions", "gz, .zst"),
                Map.entry("rangefetch.orc.tail-size", "64KiB"),
                Map.entry("rangefetch.parquet.footer-precache-size", "16KiB"),
                Map.entry("rangefetch.parquet.large-footer-precache-size", "2MiB"),
                Map.entry("rangefetch.parquet.whole-file-size", "1MiB"),
                Map.entry("rangefetch.parquet.large-file-size", "512MiB"),
                Map.entry("other.setting", "ignored")), PREFIX);
        assertThat(config.minRequestSize()).isEqualTo(128 * 1024);
        assertThat(config.maxRequestSize()).isEqualTo(16 * 1024 * 1024);
        assertThat(config.smallObjectSize()).isEqualTo(1024 * 1024);
        assertThat(config.smallObjectPartSize()).isEqualTo(256 * 1024);
        assertThat(config.sequentialReads()).isEqualTo(3);
        assertThat(config.prefetchInitialSize()).isEqualTo(2 * 1024 * 1024);
        assertThat(config.prefetchMaxSize()).isEqualTo(1L << 30);
        assertThat(config.cacheMaxMemory()).isEqualTo(512L << 20);
        assertThat(config.metadataTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.metadataMaxEntries()).isEqualTo(100);
        assertThat(config.fetchMaxConcurrency()).isEqualTo(32);
        assertThat(config.firstByteLatency()).isEqualTo(Duration.ofMillis(50));
        assertThat(config.connectionBandwidth()).isEqualTo(100L << 20);
        assertThat(config.vectoredMinSeek()).isEqualTo(1L << 20);
        assertThat(config.vectoredMaxMergedSize()).isEqualTo(32L << 20);
        assertThat(config.vectoredDiscardTolerance()).isEqualTo(0.5);
        assertThat(config.formatExtensions()).containsExactly(Map.entry("parquet", List.of("parquet", "pq")),
                Map.entry("orc", List.of("orc")), Map.entry("text", List.of("csv")));
        assertThat(config.formatCompressedExtensions()).containsExactly("gz", "zst");
        assertThat(config.orcTailSize()).isEqualTo(64L << 10);
        assertThat(config.parquetFooterPrecacheSize()).isEqualTo(16L << 10);
        assertThat(config.parquetLargeFooterPrecacheSize()).isEqualTo(2L << 20);
        assertThat(config.parquetWholeFileSize()).isEqualTo(1L << 20);
        assertThat(config.parquetLargeFileSize()).isEqualTo(512L << 20);
        assertThat(StreamConfig.keys()).hasSize(43);
    }

    @Test
    void formatExtensionsThatCannotBeMatchedSafelyAreRefusedWithTheKey() {
        assertThatThrownBy(() -> StreamConfig.fromProperties(
                Map.of("rangefetch.format.extensions", "parquet:parquet;orc:parquet"), PREFIX))
                .hasMessageContaining("format.extensions")
                .hasMessageContaining("'parquet' is given to both 'parquet' and 'orc'");
        assertThatThrownBy(() -> StreamConfig.fromProperties(
                Map.of("rangefetch.format.extensions", "parquet parquet"), PREFIX))
                .hasMessageContaining("format.extensions=parquet parquet");
        assertThatThrownBy(() -> StreamConfig.fromProperties(
                Map.of("rangefetch.format.extensions", "text:csv,"), PREFIX))
                .hasMessageContaining("is not a key extension");
        assertThatThrownBy(() -> StreamConfig.fromProperties(
                Map.of("rangefetch.format.compressed-extensions", "g z"), PREFIX))
                .hasMessageContaining("format.compressed-extensions");
        assertThat(StreamConfig.fromProperties(Map.of("rangefetch.format.extensions", ""), PREFIX).formatExtensions())
                .isEmpty();
    }

    @Test
    void vectoredSizesNotGivenAreDerivedFromTheNetworkModel() {
        // 100 ms × 10 MiB/s = 1 MiB worth reading through; four of those is below the maximum request
        StreamConfig slow = StreamConfig.builder()
                .firstByteLatency(Duration.ofMillis(100))
                .connectionBandwidth(10L << 20)
                .build();
        assertThat(slow.vectoredMinSeek()).isEqualTo(1L << 20);
        assertThat(slow.vectoredMaxMergedSize()).isEqualTo(slow.maxRequestSize());

        StreamConfig fast = StreamConfig.fromProperties(Map.of(
                "rangefetch.network.first-byte-latency", "1s",
                "rangefetch.network.connection-bandwidth", "512MiB"), PREFIX);
        assertThat(fast.vectoredMinSeek()).isEqualTo(512L << 20);
        assertThat(fast.vectoredMaxMergedSize()).as("clamped to 1 GiB").isEqualTo(1L << 30);

        StreamConfig noLatency = StreamConfig.builder().firstByteLatency(Duration.ZERO).build();
        assertThat(noLatency.vectoredMinSeek()).isZero();
        assertThat(noLatency.vectoredMaxMergedSize()).isEqualTo(noLatency.maxRequestSize());
    }

    @Test
    void derivedVectoredSizesYieldToExplicitOnes() {
        StreamConfig bigSeek = StreamConfig.builder().vectoredMinSeek(64L << 20).build();
        assertThat(bigSeek.vectoredMinSeek()).isEqualTo(64L << 20);
        assertThat(bigSeek.vectoredMaxMergedSize()).as("raised to hold the min-seek gap").isEqualTo(64L << 20);

        StreamConfig smallMerge = StreamConfig.builder().vectoredMaxMergedSize(1L << 20).build();
        assertThat(smallMerge.vectoredMaxMergedSize()).as("below the maximum request is allowed").isEqualTo(1L << 20);
        assertThat(smallMerge.vectoredMinSeek()).as("capped at the merged size").isEqualTo(1L << 20);

        StreamConfig bigRequests = StreamConfig.builder().maxRequestSize(64L << 20).build();
        assertThat(bigRequests.vectoredMaxMergedSize()).isEqualTo(64L << 20);
    }

    @Test
    void aThrottleCeilingBelowItsFloorFailsNamingBoth() {
        assertThatThrownBy(() -> StreamConfig.builder().throttleMinConcurrency(8).throttleMaxConcurrency(4).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("throttle.max-concurrency (4)")
                .hasMessageContaining("throttle.min-concurrency (8)");
        assertThat(StreamConfig.builder().throttleMinConcurrency(4).throttleMaxConcurrency(4).build()
                .throttleMaxConcurrency()).isEqualTo(4);
    }

    @Test
    void badVectoredSettingsFailWithTheKeyAndTheValue() {
        assertThatThrownBy(() -> StreamConfig.builder().vectoredMinSeek(8L << 20).vectoredMaxMergedSize(4L << 20).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vectored.max-merged-size (4194304)")
                .hasMessageContaining("vectored.min-seek (8388608)");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.vectored.min-seek", "-1"), PREFIX))
                .hasMessageContaining("rangefetch.vectored.min-seek=-1");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.vectored.max-merged-size", "2GiB"), PREFIX))
                .hasMessageContaining("vectored.max-merged-size=2GiB").hasMessageContaining("1GiB");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.vectored.max-merged-size", "0"), PREFIX))
                .hasMessageContaining("vectored.max-merged-size=0");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.vectored.discard-tolerance", "-0.5"), PREFIX))
                .hasMessageContaining("vectored.discard-tolerance=-0.5");
        assertThatThrownBy(() -> StreamConfig.builder().vectoredDiscardTolerance(Double.NaN))
                .hasMessageContaining("vectored.discard-tolerance");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.network.connection-bandwidth", "fast"), PREFIX))
                .hasMessageContaining("network.connection-bandwidth=fast").hasMessageContaining("85MB/s");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.network.connection-bandwidth", "0MB/s"), PREFIX))
                .hasMessageContaining("network.connection-bandwidth=0MB/s");
        assertThatThrownBy(() -> StreamConfig.builder().firstByteLatency(Duration.ofMillis(-1)))
                .hasMessageContaining("network.first-byte-latency");
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
