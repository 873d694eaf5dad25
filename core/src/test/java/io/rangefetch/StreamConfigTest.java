package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.CONNECTION_BANDWIDTH;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.FIRST_BYTE_LATENCY;
import static io.rangefetch.StreamConfig.FORMAT_COMPRESSED_EXTENSIONS;
import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;
import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.METADATA_MAX_ENTRIES;
import static io.rangefetch.StreamConfig.METADATA_TTL;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.SEQUENTIAL_READS;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_PART_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static io.rangefetch.StreamConfig.THROTTLE_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.THROTTLE_MIN_CONCURRENCY;
import static io.rangefetch.StreamConfig.VECTORED_DISCARD_TOLERANCE;
import static io.rangefetch.StreamConfig.VECTORED_MAX_MERGED_SIZE;
import static io.rangefetch.StreamConfig.VECTORED_MIN_SEEK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.internal.format.OrcFormatPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamConfigTest {
    private static final String PREFIX = "rangefetch.";

    @Test
    void defaultsArePinned() {
        StreamConfig config = StreamConfig.defaults();
        assertThat(config.get(MIN_REQUEST_SIZE)).isEqualTo(64 * 1024);
        assertThat(config.get(MAX_REQUEST_SIZE)).isEqualTo(8 * 1024 * 1024);
        assertThat(config.get(SMALL_OBJECT_SIZE)).isEqualTo(8 * 1024 * 1024);
        assertThat(config.get(SEQUENTIAL_READS)).isEqualTo(2);
        assertThat(config.get(SMALL_OBJECT_PART_SIZE)).isEqualTo(512 * 1024);
        assertThat(config.get(PREFETCH_INITIAL_SIZE)).isEqualTo(4 * 1024 * 1024);
        assertThat(config.get(PREFETCH_MAX_SIZE)).isEqualTo(64 * 1024 * 1024);
        assertThat(config.get(CACHE_MAX_MEMORY)).isEqualTo(Runtime.getRuntime().maxMemory() / 10);
        assertThat(config.get(METADATA_TTL)).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.get(METADATA_MAX_ENTRIES)).isEqualTo(10_000);
        assertThat(config.get(FETCH_MAX_CONCURRENCY)).isEqualTo(16);
        assertThat(config.get(FIRST_BYTE_LATENCY)).isEqualTo(Duration.ofMillis(30));
        assertThat(config.get(CONNECTION_BANDWIDTH)).isEqualTo(85L * 1024 * 1024);
        // latency × bandwidth = 0.030 s × 89,128,960 B/s
        assertThat(config.get(VECTORED_MIN_SEEK)).isEqualTo(2_673_868);
        // four round trips' worth, above the 8 MiB maximum request
        assertThat(config.get(VECTORED_MAX_MERGED_SIZE)).isEqualTo(10_695_475);
        assertThat(config.get(VECTORED_DISCARD_TOLERANCE)).isEqualTo(0.25);
    }

    @Test
    void everyKeyParsesFromPropertiesWithUnits() {
        StreamConfig config = StreamConfig.fromProperties(
                Map.ofEntries(
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
                        Map.entry("rangefetch.factory.linger", "90s"),
                        Map.entry("rangefetch.fetch.max-concurrency", "32"),
                        Map.entry("rangefetch.network.first-byte-latency", "50ms"),
                        Map.entry("rangefetch.network.connection-bandwidth", "100MB/s"),
                        Map.entry("rangefetch.vectored.min-seek", "1MiB"),
                        Map.entry("rangefetch.vectored.max-merged-size", "32MB"),
                        Map.entry("rangefetch.vectored.discard-tolerance", "50%"),
                        Map.entry("rangefetch.format.extensions", "parquet:.PARQUET,pq ; orc:orc;text:csv"),
                        Map.entry("rangefetch.format.compressed-extensions", "gz, .zst"),
                        Map.entry("rangefetch.orc.tail-size", "64KiB"),
                        Map.entry("other.setting", "ignored")),
                PREFIX);
        assertThat(config.get(MIN_REQUEST_SIZE)).isEqualTo(128 * 1024);
        assertThat(config.get(MAX_REQUEST_SIZE)).isEqualTo(16 * 1024 * 1024);
        assertThat(config.get(SMALL_OBJECT_SIZE)).isEqualTo(1024 * 1024);
        assertThat(config.get(SMALL_OBJECT_PART_SIZE)).isEqualTo(256 * 1024);
        assertThat(config.get(SEQUENTIAL_READS)).isEqualTo(3);
        assertThat(config.get(PREFETCH_INITIAL_SIZE)).isEqualTo(2 * 1024 * 1024);
        assertThat(config.get(PREFETCH_MAX_SIZE)).isEqualTo(1L << 30);
        assertThat(config.get(CACHE_MAX_MEMORY)).isEqualTo(512L << 20);
        assertThat(config.get(METADATA_TTL)).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.get(METADATA_MAX_ENTRIES)).isEqualTo(100);
        assertThat(config.get(StreamConfig.FACTORY_LINGER)).isEqualTo(Duration.ofSeconds(90));
        assertThat(config.get(FETCH_MAX_CONCURRENCY)).isEqualTo(32);
        assertThat(config.get(FIRST_BYTE_LATENCY)).isEqualTo(Duration.ofMillis(50));
        assertThat(config.get(CONNECTION_BANDWIDTH)).isEqualTo(100L << 20);
        assertThat(config.get(VECTORED_MIN_SEEK)).isEqualTo(1L << 20);
        assertThat(config.get(VECTORED_MAX_MERGED_SIZE)).isEqualTo(32L << 20);
        assertThat(config.get(VECTORED_DISCARD_TOLERANCE)).isEqualTo(0.5);
        assertThat(config.get(FORMAT_EXTENSIONS))
                .containsExactly(
                        Map.entry("parquet", List.of("parquet", "pq")),
                        Map.entry("orc", List.of("orc")),
                        Map.entry("text", List.of("csv")));
        assertThat(config.get(FORMAT_COMPRESSED_EXTENSIONS)).containsExactly("gz", "zst");
        assertThat(config.get(OrcFormatPolicy.TAIL_SIZE)).isEqualTo(64L << 10);
        // Parquet's keys are the Parquet module's: without it, core knows its own and ORC's.
        assertThat(StreamConfig.keys()).hasSize(40);
    }

    @Test
    void formatExtensionsThatCannotBeMatchedSafelyAreRefusedWithTheKey() {
        assertThatThrownBy(() -> StreamConfig.fromProperties(
                        Map.of("rangefetch.format.extensions", "parquet:parquet;orc:parquet"), PREFIX))
                .hasMessageContaining("format.extensions")
                .hasMessageContaining("'parquet' is given to both 'parquet' and 'orc'");
        assertThatThrownBy(() ->
                        StreamConfig.fromProperties(Map.of("rangefetch.format.extensions", "parquet parquet"), PREFIX))
                .hasMessageContaining("format.extensions=parquet parquet");
        assertThatThrownBy(
                        () -> StreamConfig.fromProperties(Map.of("rangefetch.format.extensions", "text:csv,"), PREFIX))
                .hasMessageContaining("is not a key extension");
        assertThatThrownBy(() ->
                        StreamConfig.fromProperties(Map.of("rangefetch.format.compressed-extensions", "g z"), PREFIX))
                .hasMessageContaining("format.compressed-extensions");
        assertThat(StreamConfig.fromProperties(Map.of("rangefetch.format.extensions", ""), PREFIX)
                        .get(FORMAT_EXTENSIONS))
                .isEmpty();
    }

    @Test
    void vectoredSizesNotGivenAreDerivedFromTheNetworkModel() {
        // 100 ms × 10 MiB/s = 1 MiB worth reading through; four of those is below the maximum request
        StreamConfig slow = StreamConfig.builder()
                .set(FIRST_BYTE_LATENCY, Duration.ofMillis(100))
                .set(CONNECTION_BANDWIDTH, 10L << 20)
                .build();
        assertThat(slow.get(VECTORED_MIN_SEEK)).isEqualTo(1L << 20);
        assertThat(slow.get(VECTORED_MAX_MERGED_SIZE)).isEqualTo(slow.get(MAX_REQUEST_SIZE));

        StreamConfig fast = StreamConfig.fromProperties(
                Map.of(
                        "rangefetch.network.first-byte-latency", "1s",
                        "rangefetch.network.connection-bandwidth", "512MiB"),
                PREFIX);
        assertThat(fast.get(VECTORED_MIN_SEEK)).isEqualTo(512L << 20);
        assertThat(fast.get(VECTORED_MAX_MERGED_SIZE)).as("clamped to 1 GiB").isEqualTo(1L << 30);

        StreamConfig noLatency =
                StreamConfig.builder().set(FIRST_BYTE_LATENCY, Duration.ZERO).build();
        assertThat(noLatency.get(VECTORED_MIN_SEEK)).isZero();
        assertThat(noLatency.get(VECTORED_MAX_MERGED_SIZE)).isEqualTo(noLatency.get(MAX_REQUEST_SIZE));
    }

    @Test
    void derivedVectoredSizesYieldToExplicitOnes() {
        StreamConfig bigSeek =
                StreamConfig.builder().set(VECTORED_MIN_SEEK, 64L << 20).build();
        assertThat(bigSeek.get(VECTORED_MIN_SEEK)).isEqualTo(64L << 20);
        assertThat(bigSeek.get(VECTORED_MAX_MERGED_SIZE))
                .as("raised to hold the min-seek gap")
                .isEqualTo(64L << 20);

        StreamConfig smallMerge =
                StreamConfig.builder().set(VECTORED_MAX_MERGED_SIZE, 1L << 20).build();
        assertThat(smallMerge.get(VECTORED_MAX_MERGED_SIZE))
                .as("below the maximum request is allowed")
                .isEqualTo(1L << 20);
        assertThat(smallMerge.get(VECTORED_MIN_SEEK))
                .as("capped at the merged size")
                .isEqualTo(1L << 20);

        StreamConfig bigRequests =
                StreamConfig.builder().set(MAX_REQUEST_SIZE, 64L << 20).build();
        assertThat(bigRequests.get(VECTORED_MAX_MERGED_SIZE)).isEqualTo(64L << 20);
    }

    @Test
    void aThrottleCeilingBelowItsFloorFailsNamingBoth() {
        assertThatThrownBy(() -> StreamConfig.builder()
                        .set(THROTTLE_MIN_CONCURRENCY, 8)
                        .set(THROTTLE_MAX_CONCURRENCY, 4)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("throttle.max-concurrency (4)")
                .hasMessageContaining("throttle.min-concurrency (8)");
        assertThat(StreamConfig.builder()
                        .set(THROTTLE_MIN_CONCURRENCY, 4)
                        .set(THROTTLE_MAX_CONCURRENCY, 4)
                        .build()
                        .get(THROTTLE_MAX_CONCURRENCY))
                .isEqualTo(4);
    }

    @Test
    void badVectoredSettingsFailWithTheKeyAndTheValue() {
        assertThatThrownBy(() -> StreamConfig.builder()
                        .set(VECTORED_MIN_SEEK, 8L << 20)
                        .set(VECTORED_MAX_MERGED_SIZE, 4L << 20)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vectored.max-merged-size (4194304)")
                .hasMessageContaining("vectored.min-seek (8388608)");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.vectored.min-seek", "-1"), PREFIX))
                .hasMessageContaining("rangefetch.vectored.min-seek=-1");
        assertThatThrownBy(() ->
                        StreamConfig.fromProperties(Map.of("rangefetch.vectored.max-merged-size", "2GiB"), PREFIX))
                .hasMessageContaining("vectored.max-merged-size=2GiB")
                .hasMessageContaining("1GiB");
        assertThatThrownBy(
                        () -> StreamConfig.fromProperties(Map.of("rangefetch.vectored.max-merged-size", "0"), PREFIX))
                .hasMessageContaining("vectored.max-merged-size=0");
        assertThatThrownBy(() ->
                        StreamConfig.fromProperties(Map.of("rangefetch.vectored.discard-tolerance", "-0.5"), PREFIX))
                .hasMessageContaining("vectored.discard-tolerance=-0.5");
        assertThatThrownBy(() -> StreamConfig.builder().set(VECTORED_DISCARD_TOLERANCE, Double.NaN))
                .hasMessageContaining("vectored.discard-tolerance");
        assertThatThrownBy(() ->
                        StreamConfig.fromProperties(Map.of("rangefetch.network.connection-bandwidth", "fast"), PREFIX))
                .hasMessageContaining("network.connection-bandwidth=fast")
                .hasMessageContaining("85MB/s");
        assertThatThrownBy(() ->
                        StreamConfig.fromProperties(Map.of("rangefetch.network.connection-bandwidth", "0MB/s"), PREFIX))
                .hasMessageContaining("network.connection-bandwidth=0MB/s");
        assertThatThrownBy(() -> StreamConfig.builder().set(FIRST_BYTE_LATENCY, Duration.ofMillis(-1)))
                .hasMessageContaining("network.first-byte-latency");
    }

    @Test
    void cacheMemoryAcceptsAPercentageOfTheHeap() {
        StreamConfig config = StreamConfig.fromProperties(Map.of("rangefetch.cache.max-memory", "25%"), PREFIX);
        assertThat(config.get(CACHE_MAX_MEMORY))
                .isEqualTo((long) (Runtime.getRuntime().maxMemory() * 25.0 / 100));
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
        assertThatThrownBy(() ->
                        StreamConfig.fromProperties(Map.of("rangefetch.read.max-request-size", "8 parsecs"), PREFIX))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rangefetch.read.max-request-size")
                .hasMessageContaining("8 parsecs");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.metadata.ttl", "30"), PREFIX))
                .hasMessageContaining("rangefetch.metadata.ttl")
                .hasMessageContaining("'30'");
        assertThatThrownBy(
                        () -> StreamConfig.fromProperties(Map.of("rangefetch.fetch.max-concurrency", "many"), PREFIX))
                .hasMessageContaining("many");
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.cache.max-memory", "95%"), PREFIX))
                .hasMessageContaining("95%");
    }

    @Test
    void anOutOfRangeValueFailsWithTheKeyAndTheValue() {
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of("rangefetch.fetch.max-concurrency", "0"), PREFIX))
                .hasMessageContaining("rangefetch.fetch.max-concurrency=0");
        assertThatThrownBy(() -> StreamConfig.builder()
                        .set(MIN_REQUEST_SIZE, 1 << 20)
                        .set(MAX_REQUEST_SIZE, 1 << 20)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("read.max-request-size (1048576)");
        assertThatThrownBy(() ->
                        StreamConfig.builder().set(MAX_REQUEST_SIZE, 2L << 30).build())
                .hasMessageContaining("1GiB");
        assertThatThrownBy(() -> StreamConfig.builder()
                        .set(PREFETCH_INITIAL_SIZE, 32 << 20)
                        .set(PREFETCH_MAX_SIZE, 16 << 20)
                        .build())
                .hasMessageContaining("prefetch.max-size");
        assertThatThrownBy(() -> StreamConfig.builder().set(METADATA_TTL, Duration.ofSeconds(-1)))
                .hasMessageContaining("metadata.ttl");
    }

    @Test
    void aSettingGivenTwiceIsRefused() {
        assertThatThrownBy(
                        () -> StreamConfig.builder().set(MIN_REQUEST_SIZE, 1024).set(MIN_REQUEST_SIZE, 2048))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("read.min-request-size");
    }
}
