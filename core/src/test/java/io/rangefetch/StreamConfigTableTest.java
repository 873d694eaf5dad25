package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.internal.config.Setting;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every key of {@link StreamConfig}, one by one: its default, a value with units read from properties and given
 * to the builder, bad values, and a second setting. Each list below must name every key, so a key added to the
 * table without a pinned default, a parse case and a bad value fails here.
 */
class StreamConfigTableTest {
    private static final String PREFIX = "rangefetch.";

    /** Each key's default as the table gives it (the derived ones as derived from the default network model). */
    private static final Map<String, Object> DEFAULTS = ordered(
            StreamConfig.MIN_REQUEST_SIZE, 64L << 10,
            StreamConfig.MAX_REQUEST_SIZE, 8L << 20,
            StreamConfig.SMALL_OBJECT_SIZE, 8L << 20,
            StreamConfig.SMALL_OBJECT_PART_SIZE, 512L << 10,
            StreamConfig.SEQUENTIAL_READS, 2,
            StreamConfig.PREFETCH_INITIAL_SIZE, 4L << 20,
            StreamConfig.PREFETCH_MAX_SIZE, 64L << 20,
            StreamConfig.CACHE_MAX_MEMORY, Runtime.getRuntime().maxMemory() / 10,
            StreamConfig.METADATA_TTL, Duration.ofSeconds(60),
            StreamConfig.METADATA_MAX_ENTRIES, 10_000,
            StreamConfig.FETCH_MAX_CONCURRENCY, 16,
            StreamConfig.RETRY_MAX_ATTEMPTS, 8,
            StreamConfig.RETRY_BASE_DELAY, Duration.ofMillis(50),
            StreamConfig.RETRY_MAX_DELAY, Duration.ofSeconds(2),
            StreamConfig.RETRY_DEADLINE, Duration.ofSeconds(30),
            StreamConfig.RETRY_FIRST_BYTE_TIMEOUT, Duration.ofSeconds(10),
            StreamConfig.RETRY_BETWEEN_BYTES_TIMEOUT, Duration.ofSeconds(10),
            StreamConfig.READ_DEADLINE, Duration.ofMinutes(2),
            StreamConfig.THROTTLE_ENABLED, true,
            StreamConfig.THROTTLE_MIN_CONCURRENCY, 2,
            StreamConfig.THROTTLE_MAX_CONCURRENCY, 64,
            StreamConfig.THROTTLE_INCREASE_STEP, 1,
            StreamConfig.THROTTLE_DECREASE_FACTOR, 0.5,
            StreamConfig.THROTTLE_NOISE_TEST, true,
            StreamConfig.HEDGE_ENABLED, true,
            StreamConfig.HEDGE_PERCENTILE, 0.95,
            StreamConfig.HEDGE_MIN_DELAY, Duration.ofMillis(30),
            StreamConfig.HEDGE_MAX_FRACTION, 0.05,
            StreamConfig.LIST_PAGE_SIZE, 1000,
            StreamConfig.LIST_CURSORS, 16,
            StreamConfig.LIST_PARALLELISM, 8,
            StreamConfig.FIRST_BYTE_LATENCY, Duration.ofMillis(30),
            StreamConfig.CONNECTION_BANDWIDTH, 85L << 20,
            StreamConfig.VECTORED_MIN_SEEK, 2_673_868L,
            StreamConfig.VECTORED_MAX_MERGED_SIZE, 10_695_475L,
            StreamConfig.VECTORED_DISCARD_TOLERANCE, 0.25,
            StreamConfig.FORMAT_EXTENSIONS, Map.of("parquet", List.of("parquet", "parq"), "orc", List.of("orc"),
                    "text", List.of("csv", "tsv", "json", "jsonl", "ndjson", "txt", "log")),
            StreamConfig.FORMAT_COMPRESSED_EXTENSIONS,
                    List.of("gz", "bz2", "zst", "lz4", "snappy", "deflate", "xz", "br"),
            StreamConfig.ORC_TAIL_SIZE, 256L << 10,
            StreamConfig.PARQUET_FOOTER_PRECACHE_SIZE, 32L << 10,
            StreamConfig.PARQUET_LARGE_FOOTER_PRECACHE_SIZE, 1L << 20,
            StreamConfig.PARQUET_WHOLE_FILE_SIZE, 3L << 20,
            StreamConfig.PARQUET_LARGE_FILE_SIZE, 1L << 30);

    /**
     * One key: a value with units, what it means, and the key's getter and builder method. Each value differs
     * from the key's default and fits the other defaults, so it can be given alone.
     */
    record Case(String key, String text, Object value, Function<StreamConfig, Object> getter,
            BiFunction<StreamConfig.Builder, Object, StreamConfig.Builder> setter) {
        @Override
        public String toString() {
            return key + "=" + text;
        }
    }

    static List<Case> cases() {
        return List.of(
                new Case(StreamConfig.MIN_REQUEST_SIZE, "128KiB", 128L << 10, StreamConfig::minRequestSize,
                        (b, v) -> b.minRequestSize((Long) v)),
                new Case(StreamConfig.MAX_REQUEST_SIZE, "16MB", 16L << 20, StreamConfig::maxRequestSize,
                        (b, v) -> b.maxRequestSize((Long) v)),
                new Case(StreamConfig.SMALL_OBJECT_SIZE, "1.5m", 3L << 19, StreamConfig::smallObjectSize,
                        (b, v) -> b.smallObjectSize((Long) v)),
                new Case(StreamConfig.SMALL_OBJECT_PART_SIZE, "256 KiB", 256L << 10, StreamConfig::smallObjectPartSize,
                        (b, v) -> b.smallObjectPartSize((Long) v)),
                new Case(StreamConfig.SEQUENTIAL_READS, " 3 ", 3, StreamConfig::sequentialReads,
                        (b, v) -> b.sequentialReads((Integer) v)),
                new Case(StreamConfig.PREFETCH_INITIAL_SIZE, "2MiB", 2L << 20, StreamConfig::prefetchInitialSize,
                        (b, v) -> b.prefetchInitialSize((Long) v)),
                new Case(StreamConfig.PREFETCH_MAX_SIZE, "1g", 1L << 30, StreamConfig::prefetchMaxSize,
                        (b, v) -> b.prefetchMaxSize((Long) v)),
                new Case(StreamConfig.CACHE_MAX_MEMORY, "512MiB", 512L << 20, StreamConfig::cacheMaxMemory,
                        (b, v) -> b.cacheMaxMemory((Long) v)),
                new Case(StreamConfig.METADATA_TTL, "5m", Duration.ofMinutes(5), StreamConfig::metadataTtl,
                        (b, v) -> b.metadataTtl((Duration) v)),
                new Case(StreamConfig.METADATA_MAX_ENTRIES, "100", 100, StreamConfig::metadataMaxEntries,
                        (b, v) -> b.metadataMaxEntries((Integer) v)),
                new Case(StreamConfig.FETCH_MAX_CONCURRENCY, "32", 32, StreamConfig::fetchMaxConcurrency,
                        (b, v) -> b.fetchMaxConcurrency((Integer) v)),
                new Case(StreamConfig.RETRY_MAX_ATTEMPTS, "1", 1, StreamConfig::retryMaxAttempts,
                        (b, v) -> b.retryMaxAttempts((Integer) v)),
                new Case(StreamConfig.RETRY_BASE_DELAY, "10ms", Duration.ofMillis(10), StreamConfig::retryBaseDelay,
                        (b, v) -> b.retryBaseDelay((Duration) v)),
                new Case(StreamConfig.RETRY_MAX_DELAY, "1.5s", Duration.ofMillis(1500), StreamConfig::retryMaxDelay,
                        (b, v) -> b.retryMaxDelay((Duration) v)),
                new Case(StreamConfig.RETRY_DEADLINE, "2m", Duration.ofMinutes(2), StreamConfig::retryDeadline,
                        (b, v) -> b.retryDeadline((Duration) v)),
                new Case(StreamConfig.RETRY_FIRST_BYTE_TIMEOUT, "2.5s", Duration.ofMillis(2500),
                        StreamConfig::retryFirstByteTimeout, (b, v) -> b.retryFirstByteTimeout((Duration) v)),
                new Case(StreamConfig.RETRY_BETWEEN_BYTES_TIMEOUT, "0s", Duration.ZERO,
                        StreamConfig::retryBetweenBytesTimeout, (b, v) -> b.retryBetweenBytesTimeout((Duration) v)),
                new Case(StreamConfig.READ_DEADLINE, "90 s", Duration.ofSeconds(90), StreamConfig::readDeadline,
                        (b, v) -> b.readDeadline((Duration) v)),
                new Case(StreamConfig.THROTTLE_ENABLED, " FALSE", false, StreamConfig::throttleEnabled,
                        (b, v) -> b.throttleEnabled((Boolean) v)),
                new Case(StreamConfig.THROTTLE_MIN_CONCURRENCY, "4", 4, StreamConfig::throttleMinConcurrency,
                        (b, v) -> b.throttleMinConcurrency((Integer) v)),
                new Case(StreamConfig.THROTTLE_MAX_CONCURRENCY, "128", 128, StreamConfig::throttleMaxConcurrency,
                        (b, v) -> b.throttleMaxConcurrency((Integer) v)),
                new Case(StreamConfig.THROTTLE_INCREASE_STEP, "2", 2, StreamConfig::throttleIncreaseStep,
                        (b, v) -> b.throttleIncreaseStep((Integer) v)),
                new Case(StreamConfig.THROTTLE_DECREASE_FACTOR, "75%", 0.75, StreamConfig::throttleDecreaseFactor,
                        (b, v) -> b.throttleDecreaseFactor((Double) v)),
                new Case(StreamConfig.THROTTLE_NOISE_TEST, "false", false, StreamConfig::throttleNoiseTest,
                        (b, v) -> b.throttleNoiseTest((Boolean) v)),
                new Case(StreamConfig.HEDGE_ENABLED, "false", false, StreamConfig::hedgeEnabled,
                        (b, v) -> b.hedgeEnabled((Boolean) v)),
                new Case(StreamConfig.HEDGE_PERCENTILE, "99%", 0.99, StreamConfig::hedgePercentile,
                        (b, v) -> b.hedgePercentile((Double) v)),
                new Case(StreamConfig.HEDGE_MIN_DELAY, "250ms", Duration.ofMillis(250), StreamConfig::hedgeMinDelay,
                        (b, v) -> b.hedgeMinDelay((Duration) v)),
                new Case(StreamConfig.HEDGE_MAX_FRACTION, "0.02", 0.02, StreamConfig::hedgeMaxFraction,
                        (b, v) -> b.hedgeMaxFraction((Double) v)),
                new Case(StreamConfig.LIST_PAGE_SIZE, "500", 500, StreamConfig::listPageSize,
                        (b, v) -> b.listPageSize((Integer) v)),
                new Case(StreamConfig.LIST_CURSORS, "4", 4, StreamConfig::listCursors,
                        (b, v) -> b.listCursors((Integer) v)),
                new Case(StreamConfig.LIST_PARALLELISM, "2", 2, StreamConfig::listParallelism,
                        (b, v) -> b.listParallelism((Integer) v)),
                new Case(StreamConfig.FIRST_BYTE_LATENCY, "1.5s", Duration.ofMillis(1500),
                        StreamConfig::firstByteLatency, (b, v) -> b.firstByteLatency((Duration) v)),
                new Case(StreamConfig.CONNECTION_BANDWIDTH, "100MiB/s", 100L << 20, StreamConfig::connectionBandwidth,
                        (b, v) -> b.connectionBandwidth((Long) v)),
                new Case(StreamConfig.VECTORED_MIN_SEEK, "1MiB", 1L << 20, StreamConfig::vectoredMinSeek,
                        (b, v) -> b.vectoredMinSeek((Long) v)),
                new Case(StreamConfig.VECTORED_MAX_MERGED_SIZE, "32MB", 32L << 20,
                        StreamConfig::vectoredMaxMergedSize, (b, v) -> b.vectoredMaxMergedSize((Long) v)),
                new Case(StreamConfig.VECTORED_DISCARD_TOLERANCE, "50%", 0.5, StreamConfig::vectoredDiscardTolerance,
                        (b, v) -> b.vectoredDiscardTolerance((Double) v)),
                new Case(StreamConfig.FORMAT_EXTENSIONS, "parquet:.PARQUET,pq ; text:csv",
                        Map.of("parquet", List.of("parquet", "pq"), "text", List.of("csv")),
                        StreamConfig::formatExtensions, (b, v) -> b.formatExtensions(extensionsByPolicy(v))),
                new Case(StreamConfig.FORMAT_COMPRESSED_EXTENSIONS, "gz, .ZST", List.of("gz", "zst"),
                        StreamConfig::formatCompressedExtensions, (b, v) -> b.formatCompressedExtensions(list(v))),
                new Case(StreamConfig.ORC_TAIL_SIZE, "64KiB", 64L << 10, StreamConfig::orcTailSize,
                        (b, v) -> b.orcTailSize((Long) v)),
                new Case(StreamConfig.PARQUET_FOOTER_PRECACHE_SIZE, "16k", 16L << 10,
                        StreamConfig::parquetFooterPrecacheSize, (b, v) -> b.parquetFooterPrecacheSize((Long) v)),
                new Case(StreamConfig.PARQUET_LARGE_FOOTER_PRECACHE_SIZE, "2MiB", 2L << 20,
                        StreamConfig::parquetLargeFooterPrecacheSize,
                        (b, v) -> b.parquetLargeFooterPrecacheSize((Long) v)),
                new Case(StreamConfig.PARQUET_WHOLE_FILE_SIZE, "1MiB", 1L << 20,
                        StreamConfig::parquetWholeFileSize, (b, v) -> b.parquetWholeFileSize((Long) v)),
                new Case(StreamConfig.PARQUET_LARGE_FILE_SIZE, "512MiB", 512L << 20,
                        StreamConfig::parquetLargeFileSize, (b, v) -> b.parquetLargeFileSize((Long) v)));
    }

    /** Values that do not parse or are out of the key's range: at least one for every key. */
    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of(StreamConfig.MIN_REQUEST_SIZE, "0"),
                Arguments.of(StreamConfig.MIN_REQUEST_SIZE, "64 parsecs"),
                Arguments.of(StreamConfig.MAX_REQUEST_SIZE, "1"),
                Arguments.of(StreamConfig.MAX_REQUEST_SIZE, "2GiB"),
                Arguments.of(StreamConfig.SMALL_OBJECT_SIZE, "2GiB"),
                Arguments.of(StreamConfig.SMALL_OBJECT_SIZE, "1.5B"),
                Arguments.of(StreamConfig.SMALL_OBJECT_PART_SIZE, "0"),
                Arguments.of(StreamConfig.SEQUENTIAL_READS, "0"),
                Arguments.of(StreamConfig.SEQUENTIAL_READS, "two"),
                Arguments.of(StreamConfig.PREFETCH_INITIAL_SIZE, "0"),
                Arguments.of(StreamConfig.PREFETCH_MAX_SIZE, "-1MiB"),
                Arguments.of(StreamConfig.CACHE_MAX_MEMORY, "0"),
                Arguments.of(StreamConfig.CACHE_MAX_MEMORY, "95%"),
                Arguments.of(StreamConfig.CACHE_MAX_MEMORY, "lots"),
                Arguments.of(StreamConfig.METADATA_TTL, "30"),
                Arguments.of(StreamConfig.METADATA_TTL, "30 fortnights"),
                Arguments.of(StreamConfig.METADATA_MAX_ENTRIES, "-1"),
                Arguments.of(StreamConfig.FETCH_MAX_CONCURRENCY, "0"),
                Arguments.of(StreamConfig.FETCH_MAX_CONCURRENCY, "1025"),
                Arguments.of(StreamConfig.FETCH_MAX_CONCURRENCY, "many"),
                Arguments.of(StreamConfig.RETRY_MAX_ATTEMPTS, "0"),
                Arguments.of(StreamConfig.RETRY_MAX_ATTEMPTS, "101"),
                Arguments.of(StreamConfig.RETRY_BASE_DELAY, "50"),
                Arguments.of(StreamConfig.RETRY_MAX_DELAY, "-1s"),
                Arguments.of(StreamConfig.RETRY_DEADLINE, "soon"),
                Arguments.of(StreamConfig.RETRY_FIRST_BYTE_TIMEOUT, "-1s"),
                Arguments.of(StreamConfig.RETRY_BETWEEN_BYTES_TIMEOUT, "10"),
                Arguments.of(StreamConfig.READ_DEADLINE, "forever"),
                Arguments.of(StreamConfig.THROTTLE_ENABLED, "yes"),
                Arguments.of(StreamConfig.THROTTLE_MIN_CONCURRENCY, "0"),
                Arguments.of(StreamConfig.THROTTLE_MAX_CONCURRENCY, "5000"),
                Arguments.of(StreamConfig.THROTTLE_INCREASE_STEP, "0"),
                Arguments.of(StreamConfig.THROTTLE_DECREASE_FACTOR, "1"),
                Arguments.of(StreamConfig.THROTTLE_DECREASE_FACTOR, "0"),
                Arguments.of(StreamConfig.THROTTLE_NOISE_TEST, "maybe"),
                Arguments.of(StreamConfig.HEDGE_ENABLED, "on"),
                Arguments.of(StreamConfig.HEDGE_PERCENTILE, "0.4"),
                Arguments.of(StreamConfig.HEDGE_PERCENTILE, "1"),
                Arguments.of(StreamConfig.HEDGE_MIN_DELAY, "-1ms"),
                Arguments.of(StreamConfig.HEDGE_MAX_FRACTION, "0.6"),
                Arguments.of(StreamConfig.LIST_PAGE_SIZE, "1001"),
                Arguments.of(StreamConfig.LIST_PAGE_SIZE, "0"),
                Arguments.of(StreamConfig.LIST_CURSORS, "0"),
                Arguments.of(StreamConfig.LIST_PARALLELISM, "many"),
                Arguments.of(StreamConfig.FIRST_BYTE_LATENCY, "-5ms"),
                Arguments.of(StreamConfig.CONNECTION_BANDWIDTH, "0MB/s"),
                Arguments.of(StreamConfig.CONNECTION_BANDWIDTH, "fast"),
                Arguments.of(StreamConfig.VECTORED_MIN_SEEK, "2GiB"),
                Arguments.of(StreamConfig.VECTORED_MIN_SEEK, "-1"),
                Arguments.of(StreamConfig.VECTORED_MAX_MERGED_SIZE, "0"),
                Arguments.of(StreamConfig.VECTORED_MAX_MERGED_SIZE, "2GiB"),
                Arguments.of(StreamConfig.VECTORED_DISCARD_TOLERANCE, "-0.5"),
                Arguments.of(StreamConfig.VECTORED_DISCARD_TOLERANCE, "a quarter"),
                Arguments.of(StreamConfig.FORMAT_EXTENSIONS, "parquet parquet"),
                Arguments.of(StreamConfig.FORMAT_EXTENSIONS, "a:x;b:x"),
                Arguments.of(StreamConfig.FORMAT_COMPRESSED_EXTENSIONS, "g z"),
                Arguments.of(StreamConfig.ORC_TAIL_SIZE, "2GiB"),
                Arguments.of(StreamConfig.PARQUET_FOOTER_PRECACHE_SIZE, "2GiB"),
                Arguments.of(StreamConfig.PARQUET_LARGE_FOOTER_PRECACHE_SIZE, "-5"),
                Arguments.of(StreamConfig.PARQUET_WHOLE_FILE_SIZE, "2GiB"),
                Arguments.of(StreamConfig.PARQUET_LARGE_FILE_SIZE, "1 GB per file"));
    }

    @Test
    void everyDefaultIsPinned() {
        StreamConfig defaults = StreamConfig.defaults();
        assertThat(DEFAULTS.keySet()).containsExactlyElementsOf(StreamConfig.keys());
        DEFAULTS.forEach((key, value) -> assertThat((Object) defaults.get(setting(key))).as(key).isEqualTo(value));
    }

    @Test
    void theCasesAndTheBadValuesCoverEveryKey() {
        assertThat(cases().stream().map(Case::key)).containsExactlyElementsOf(StreamConfig.keys());
        assertThat(badValues().map(arguments -> arguments.get()[0]).distinct())
                .containsExactlyElementsOf(StreamConfig.keys());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyKeyParsesWithUnitsFromPropertiesAndIsReadBackByItsGetter(Case c) {
        StreamConfig config = StreamConfig.fromProperties(Map.of(PREFIX + c.key(), c.text()), PREFIX);
        assertThat(c.getter().apply(config)).isEqualTo(c.value()).isNotEqualTo(DEFAULTS.get(c.key()));
        assertThat((Object) config.get(setting(c.key()))).isEqualTo(c.value());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyBuilderMethodSetsItsKeyAndRefusesASecondSetting(Case c) {
        StreamConfig.Builder builder = StreamConfig.builder();
        assertThat(c.getter().apply(c.setter().apply(builder, c.value()).build())).isEqualTo(c.value());
        assertThatThrownBy(() -> c.setter().apply(builder, c.value()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(c.key() + " was already set");
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("badValues")
    void aBadValueOfEveryKeyFailsInFromPropertiesWithTheKeyAndTheValue(String key, String value) {
        String prefix = "Invalid setting " + PREFIX + key + "=" + value + ": ";
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of(PREFIX + key, value), PREFIX))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(prefix)
                .satisfies(e -> assertThat(e.getMessage().substring(prefix.length())).as("why").contains(key));
    }

    @Test
    void toStringListsEveryKeyInDocumentationOrder() {
        String text = StreamConfig.defaults().toString();
        assertThat(text).startsWith("StreamConfig{read.min-request-size=65536, read.max-request-size=8388608, ")
                .endsWith(", parquet.large-file-size=1073741824}");
        int from = 0;
        for (String key : StreamConfig.keys()) {
            int at = text.indexOf(key + "=", from);
            assertThat(at).as(key).isGreaterThan(from);
            from = at;
        }
    }

    private static Setting<?> setting(String key) {
        return SettingsTable.byKey(key).orElseThrow();
    }

    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, List<String>> extensionsByPolicy(Object value) {
        return (Map<String, List<String>>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Object value) {
        return (List<String>) value;
    }
}
