package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.CONNECTION_BANDWIDTH;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.FIRST_BYTE_LATENCY;
import static io.rangefetch.StreamConfig.FORMAT_COMPRESSED_EXTENSIONS;
import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;
import static io.rangefetch.StreamConfig.HEDGE_ENABLED;
import static io.rangefetch.StreamConfig.HEDGE_MAX_FRACTION;
import static io.rangefetch.StreamConfig.HEDGE_MIN_DELAY;
import static io.rangefetch.StreamConfig.HEDGE_PERCENTILE;
import static io.rangefetch.StreamConfig.LIST_CURSORS;
import static io.rangefetch.StreamConfig.LIST_PAGE_SIZE;
import static io.rangefetch.StreamConfig.LIST_PARALLELISM;
import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.METADATA_MAX_ENTRIES;
import static io.rangefetch.StreamConfig.METADATA_TTL;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.READ_DEADLINE;
import static io.rangefetch.StreamConfig.RETRY_BASE_DELAY;
import static io.rangefetch.StreamConfig.RETRY_BETWEEN_BYTES_TIMEOUT;
import static io.rangefetch.StreamConfig.RETRY_DEADLINE;
import static io.rangefetch.StreamConfig.RETRY_FIRST_BYTE_TIMEOUT;
import static io.rangefetch.StreamConfig.RETRY_MAX_ATTEMPTS;
import static io.rangefetch.StreamConfig.RETRY_MAX_DELAY;
import static io.rangefetch.StreamConfig.SEQUENTIAL_READS;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_PART_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static io.rangefetch.StreamConfig.THROTTLE_DECREASE_FACTOR;
import static io.rangefetch.StreamConfig.THROTTLE_ENABLED;
import static io.rangefetch.StreamConfig.THROTTLE_INCREASE_STEP;
import static io.rangefetch.StreamConfig.THROTTLE_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.THROTTLE_MIN_CONCURRENCY;
import static io.rangefetch.StreamConfig.THROTTLE_NOISE_TEST;
import static io.rangefetch.StreamConfig.VECTORED_DISCARD_TOLERANCE;
import static io.rangefetch.StreamConfig.VECTORED_MAX_MERGED_SIZE;
import static io.rangefetch.StreamConfig.VECTORED_MIN_SEEK;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.internal.format.OrcFormatPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Every setting core declares ({@link StreamConfig}'s and the built-in format policies'), through the
 * {@link SettingsContract}: its default, a value with units from properties and the builder, bad values.
 */
class StreamConfigTableTest extends SettingsContract {

    @Override
    protected List<Setting<?>> settings() {
        List<Setting<?>> settings = new ArrayList<>(StreamConfig.declared());
        settings.add(OrcFormatPolicy.TAIL_SIZE);
        return settings;
    }

    @Override
    protected Map<Setting<?>, Object> defaults() {
        return ordered(
                MIN_REQUEST_SIZE,
                64L << 10,
                MAX_REQUEST_SIZE,
                8L << 20,
                SMALL_OBJECT_SIZE,
                8L << 20,
                SMALL_OBJECT_PART_SIZE,
                512L << 10,
                SEQUENTIAL_READS,
                2,
                PREFETCH_INITIAL_SIZE,
                4L << 20,
                PREFETCH_MAX_SIZE,
                64L << 20,
                CACHE_MAX_MEMORY,
                Runtime.getRuntime().maxMemory() / 10,
                METADATA_TTL,
                Duration.ofSeconds(60),
                StreamConfig.FACTORY_LINGER,
                Duration.ofMinutes(5),
                METADATA_MAX_ENTRIES,
                10_000,
                FETCH_MAX_CONCURRENCY,
                16,
                RETRY_MAX_ATTEMPTS,
                8,
                RETRY_BASE_DELAY,
                Duration.ofMillis(50),
                RETRY_MAX_DELAY,
                Duration.ofSeconds(2),
                RETRY_DEADLINE,
                Duration.ofSeconds(30),
                RETRY_FIRST_BYTE_TIMEOUT,
                Duration.ofSeconds(10),
                RETRY_BETWEEN_BYTES_TIMEOUT,
                Duration.ofSeconds(10),
                READ_DEADLINE,
                Duration.ofMinutes(2),
                THROTTLE_ENABLED,
                true,
                THROTTLE_MIN_CONCURRENCY,
                2,
                THROTTLE_MAX_CONCURRENCY,
                64,
                THROTTLE_INCREASE_STEP,
                1,
                THROTTLE_DECREASE_FACTOR,
                0.5,
                THROTTLE_NOISE_TEST,
                true,
                HEDGE_ENABLED,
                true,
                HEDGE_PERCENTILE,
                0.95,
                HEDGE_MIN_DELAY,
                Duration.ofMillis(30),
                HEDGE_MAX_FRACTION,
                0.05,
                LIST_PAGE_SIZE,
                1000,
                LIST_CURSORS,
                16,
                LIST_PARALLELISM,
                8,
                FIRST_BYTE_LATENCY,
                Duration.ofMillis(30),
                CONNECTION_BANDWIDTH,
                85L << 20,
                VECTORED_MIN_SEEK,
                2_673_868L,
                VECTORED_MAX_MERGED_SIZE,
                10_695_475L,
                VECTORED_DISCARD_TOLERANCE,
                0.25,
                FORMAT_EXTENSIONS,
                Map.of(
                        "parquet",
                        List.of("parquet", "parq"),
                        "orc",
                        List.of("orc"),
                        "text",
                        List.of("csv", "tsv", "json", "jsonl", "ndjson", "txt", "log")),
                FORMAT_COMPRESSED_EXTENSIONS,
                List.of("gz", "bz2", "zst", "lz4", "snappy", "deflate", "xz", "br"),
                OrcFormatPolicy.TAIL_SIZE,
                256L << 10);
    }

    @Override
    protected List<Case> cases() {
        return List.of(
                new Case(MIN_REQUEST_SIZE, "128KiB", 128L << 10),
                new Case(MAX_REQUEST_SIZE, "16MB", 16L << 20),
                new Case(SMALL_OBJECT_SIZE, "1.5m", 3L << 19),
                new Case(SMALL_OBJECT_PART_SIZE, "256 KiB", 256L << 10),
                new Case(SEQUENTIAL_READS, " 3 ", 3),
                new Case(PREFETCH_INITIAL_SIZE, "2MiB", 2L << 20),
                new Case(PREFETCH_MAX_SIZE, "1g", 1L << 30),
                new Case(CACHE_MAX_MEMORY, "512MiB", 512L << 20),
                new Case(METADATA_TTL, "5m", Duration.ofMinutes(5)),
                new Case(StreamConfig.FACTORY_LINGER, "0s", Duration.ZERO),
                new Case(METADATA_MAX_ENTRIES, "100", 100),
                new Case(FETCH_MAX_CONCURRENCY, "32", 32),
                new Case(RETRY_MAX_ATTEMPTS, "1", 1),
                new Case(RETRY_BASE_DELAY, "10ms", Duration.ofMillis(10)),
                new Case(RETRY_MAX_DELAY, "1.5s", Duration.ofMillis(1500)),
                new Case(RETRY_DEADLINE, "2m", Duration.ofMinutes(2)),
                new Case(RETRY_FIRST_BYTE_TIMEOUT, "2.5s", Duration.ofMillis(2500)),
                new Case(RETRY_BETWEEN_BYTES_TIMEOUT, "0s", Duration.ZERO),
                new Case(READ_DEADLINE, "90 s", Duration.ofSeconds(90)),
                new Case(THROTTLE_ENABLED, " FALSE", false),
                new Case(THROTTLE_MIN_CONCURRENCY, "4", 4),
                new Case(THROTTLE_MAX_CONCURRENCY, "128", 128),
                new Case(THROTTLE_INCREASE_STEP, "2", 2),
                new Case(THROTTLE_DECREASE_FACTOR, "75%", 0.75),
                new Case(THROTTLE_NOISE_TEST, "false", false),
                new Case(HEDGE_ENABLED, "false", false),
                new Case(HEDGE_PERCENTILE, "99%", 0.99),
                new Case(HEDGE_MIN_DELAY, "250ms", Duration.ofMillis(250)),
                new Case(HEDGE_MAX_FRACTION, "0.02", 0.02),
                new Case(LIST_PAGE_SIZE, "500", 500),
                new Case(LIST_CURSORS, "4", 4),
                new Case(LIST_PARALLELISM, "2", 2),
                new Case(FIRST_BYTE_LATENCY, "1.5s", Duration.ofMillis(1500)),
                new Case(CONNECTION_BANDWIDTH, "100MiB/s", 100L << 20),
                new Case(VECTORED_MIN_SEEK, "1MiB", 1L << 20),
                new Case(VECTORED_MAX_MERGED_SIZE, "32MB", 32L << 20),
                new Case(VECTORED_DISCARD_TOLERANCE, "50%", 0.5),
                new Case(
                        FORMAT_EXTENSIONS,
                        "parquet:.PARQUET,pq ; text:csv",
                        Map.of("parquet", List.of("parquet", "pq"), "text", List.of("csv"))),
                new Case(FORMAT_COMPRESSED_EXTENSIONS, "gz, .ZST", List.of("gz", "zst")),
                new Case(OrcFormatPolicy.TAIL_SIZE, "64KiB", 64L << 10));
    }

    @Override
    protected Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of(MIN_REQUEST_SIZE, "0"),
                Arguments.of(MIN_REQUEST_SIZE, "64 parsecs"),
                Arguments.of(MAX_REQUEST_SIZE, "1"),
                Arguments.of(MAX_REQUEST_SIZE, "2GiB"),
                Arguments.of(SMALL_OBJECT_SIZE, "2GiB"),
                Arguments.of(SMALL_OBJECT_SIZE, "1.5B"),
                Arguments.of(SMALL_OBJECT_PART_SIZE, "0"),
                Arguments.of(SEQUENTIAL_READS, "0"),
                Arguments.of(SEQUENTIAL_READS, "two"),
                Arguments.of(PREFETCH_INITIAL_SIZE, "0"),
                Arguments.of(PREFETCH_MAX_SIZE, "-1MiB"),
                Arguments.of(CACHE_MAX_MEMORY, "0"),
                Arguments.of(CACHE_MAX_MEMORY, "95%"),
                Arguments.of(CACHE_MAX_MEMORY, "lots"),
                Arguments.of(METADATA_TTL, "30"),
                Arguments.of(METADATA_TTL, "30 fortnights"),
                Arguments.of(StreamConfig.FACTORY_LINGER, "-1s"),
                Arguments.of(METADATA_MAX_ENTRIES, "-1"),
                Arguments.of(FETCH_MAX_CONCURRENCY, "0"),
                Arguments.of(FETCH_MAX_CONCURRENCY, "1025"),
                Arguments.of(FETCH_MAX_CONCURRENCY, "many"),
                Arguments.of(RETRY_MAX_ATTEMPTS, "0"),
                Arguments.of(RETRY_MAX_ATTEMPTS, "101"),
                Arguments.of(RETRY_BASE_DELAY, "50"),
                Arguments.of(RETRY_MAX_DELAY, "-1s"),
                Arguments.of(RETRY_DEADLINE, "soon"),
                Arguments.of(RETRY_FIRST_BYTE_TIMEOUT, "-1s"),
                Arguments.of(RETRY_BETWEEN_BYTES_TIMEOUT, "10"),
                Arguments.of(READ_DEADLINE, "forever"),
                Arguments.of(THROTTLE_ENABLED, "yes"),
                Arguments.of(THROTTLE_MIN_CONCURRENCY, "0"),
                Arguments.of(THROTTLE_MAX_CONCURRENCY, "5000"),
                Arguments.of(THROTTLE_INCREASE_STEP, "0"),
                Arguments.of(THROTTLE_DECREASE_FACTOR, "1"),
                Arguments.of(THROTTLE_DECREASE_FACTOR, "0"),
                Arguments.of(THROTTLE_NOISE_TEST, "maybe"),
                Arguments.of(HEDGE_ENABLED, "on"),
                Arguments.of(HEDGE_PERCENTILE, "0.4"),
                Arguments.of(HEDGE_PERCENTILE, "1"),
                Arguments.of(HEDGE_MIN_DELAY, "-1ms"),
                Arguments.of(HEDGE_MAX_FRACTION, "0.6"),
                Arguments.of(LIST_PAGE_SIZE, "1001"),
                Arguments.of(LIST_PAGE_SIZE, "0"),
                Arguments.of(LIST_CURSORS, "0"),
                Arguments.of(LIST_PARALLELISM, "many"),
                Arguments.of(FIRST_BYTE_LATENCY, "-5ms"),
                Arguments.of(CONNECTION_BANDWIDTH, "0MB/s"),
                Arguments.of(CONNECTION_BANDWIDTH, "fast"),
                Arguments.of(VECTORED_MIN_SEEK, "2GiB"),
                Arguments.of(VECTORED_MIN_SEEK, "-1"),
                Arguments.of(VECTORED_MAX_MERGED_SIZE, "0"),
                Arguments.of(VECTORED_MAX_MERGED_SIZE, "2GiB"),
                Arguments.of(VECTORED_DISCARD_TOLERANCE, "-0.5"),
                Arguments.of(VECTORED_DISCARD_TOLERANCE, "a quarter"),
                Arguments.of(FORMAT_EXTENSIONS, "parquet parquet"),
                Arguments.of(FORMAT_EXTENSIONS, "a:x;b:x"),
                Arguments.of(FORMAT_COMPRESSED_EXTENSIONS, "g z"),
                Arguments.of(OrcFormatPolicy.TAIL_SIZE, "2GiB"));
    }

    @Test
    void withoutOtherPoliciesTheKeysAreExactlyCoresInDocumentationOrder() {
        assertThat(StreamConfig.keys())
                .containsExactlyElementsOf(settings().stream().map(Setting::key).toList());
    }

    @Test
    void toStringListsEveryKeyInDocumentationOrder() {
        String text = StreamConfig.defaults().toString();
        assertThat(text)
                .startsWith("StreamConfig{read.min-request-size=65536, read.max-request-size=8388608, ")
                .endsWith(", orc.tail-size=262144}");
        int from = 0;
        for (String key : StreamConfig.keys()) {
            int at = text.indexOf(key + "=", from);
            assertThat(at).as(key).isGreaterThan(from);
            from = at;
        }
    }
}
