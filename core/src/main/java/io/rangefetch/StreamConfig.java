package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.format.FormatSettings;
import io.rangefetch.internal.config.Checks;
import io.rangefetch.internal.config.Setting;
import io.rangefetch.internal.plan.CoalescerSettings;
import io.rangefetch.internal.plan.RequestCostModel;
import io.rangefetch.internal.plan.PlannerSettings;
import io.rangefetch.internal.fetch.ThrottleSettings;
import io.rangefetch.internal.read.HedgeSettings;
import io.rangefetch.internal.read.Resilience;
import io.rangefetch.internal.read.RetrySettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * The settings of a {@link StreamFactory}: immutable, built with {@link #builder()} or read from properties with
 * {@link #fromProperties(Map, String)}. Every key, default and range is listed in docs/CONFIGURATION.md.
 *
 * <p>Each setting is described once, in {@link SettingsTable}: key, default, parser, range and documentation
 * line. The key constants, builder methods and getters here are the public face of those entries, one line
 * each; what a key means is in docs/CONFIGURATION.md, which a test holds to the table.
 *
 * <p>Like Caffeine's builder, the builder refuses a setting given twice (one of the two would be silently lost)
 * and {@link Builder#build()} refuses settings that contradict each other, naming the values.
 *
 * <p>It is also the {@link FormatSettings} format policies read: the format package cannot name this class.
 */
public final class StreamConfig implements FormatSettings {
    public static final String MIN_REQUEST_SIZE = "read.min-request-size";
    public static final String MAX_REQUEST_SIZE = "read.max-request-size";
    public static final String SMALL_OBJECT_SIZE = "read.small-object-size";
    public static final String SMALL_OBJECT_PART_SIZE = "read.small-object-part-size";
    public static final String SEQUENTIAL_READS = "prefetch.sequential-reads";
    public static final String PREFETCH_INITIAL_SIZE = "prefetch.initial-size";
    public static final String PREFETCH_MAX_SIZE = "prefetch.max-size";
    public static final String CACHE_MAX_MEMORY = "cache.max-memory";
    public static final String METADATA_TTL = "metadata.ttl";
    public static final String METADATA_MAX_ENTRIES = "metadata.max-entries";
    public static final String FETCH_MAX_CONCURRENCY = "fetch.max-concurrency";
    public static final String RETRY_MAX_ATTEMPTS = "retry.max-attempts";
    public static final String RETRY_BASE_DELAY = "retry.base-delay";
    public static final String RETRY_MAX_DELAY = "retry.max-delay";
    public static final String RETRY_DEADLINE = "retry.deadline";
    public static final String RETRY_FIRST_BYTE_TIMEOUT = "retry.first-byte-timeout";
    public static final String RETRY_BETWEEN_BYTES_TIMEOUT = "retry.between-bytes-timeout";
    public static final String READ_DEADLINE = "read.deadline";
    public static final String THROTTLE_ENABLED = "throttle.enabled";
    public static final String THROTTLE_MIN_CONCURRENCY = "throttle.min-concurrency";
    public static final String THROTTLE_MAX_CONCURRENCY = "throttle.max-concurrency";
    public static final String THROTTLE_INCREASE_STEP = "throttle.increase-step";
    public static final String THROTTLE_DECREASE_FACTOR = "throttle.decrease-factor";
    public static final String THROTTLE_NOISE_TEST = "throttle.noise-test";
    public static final String HEDGE_ENABLED = "hedge.enabled";
    public static final String HEDGE_PERCENTILE = "hedge.percentile";
    public static final String HEDGE_MIN_DELAY = "hedge.min-delay";
    public static final String HEDGE_MAX_FRACTION = "hedge.max-fraction";
    public static final String LIST_PAGE_SIZE = "list.page-size";
    public static final String LIST_CURSORS = "list.cursors";
    public static final String LIST_PARALLELISM = "list.parallelism";
    public static final String FIRST_BYTE_LATENCY = "network.first-byte-latency";
    public static final String CONNECTION_BANDWIDTH = "network.connection-bandwidth";
    public static final String VECTORED_MIN_SEEK = "vectored.min-seek";
    public static final String VECTORED_MAX_MERGED_SIZE = "vectored.max-merged-size";
    public static final String VECTORED_DISCARD_TOLERANCE = "vectored.discard-tolerance";
    public static final String FORMAT_EXTENSIONS = "format.extensions";
    public static final String FORMAT_COMPRESSED_EXTENSIONS = "format.compressed-extensions";
    public static final String ORC_TAIL_SIZE = "orc.tail-size";
    public static final String PARQUET_FOOTER_PRECACHE_SIZE = "parquet.footer-precache-size";
    public static final String PARQUET_LARGE_FOOTER_PRECACHE_SIZE = "parquet.large-footer-precache-size";
    public static final String PARQUET_WHOLE_FILE_SIZE = "parquet.whole-file-size";
    public static final String PARQUET_LARGE_FILE_SIZE = "parquet.large-file-size";

    /**
     * The derived {@code vectored.max-merged-size} is what one connection moves in this many first-byte
     * latencies: merging saves one latency, which is then at most a fifth of the merged request's time.
     */
    static final int ROUND_TRIPS_PER_MERGED_REQUEST = 4;

    // Every setting's value, the derived ones included, keyed by the table's entries.
    private final Map<Setting<?>, Object> values;

    private StreamConfig(Map<Setting<?>, Object> values) {
        this.values = Map.copyOf(values);
    }

    public static Builder builder() {
        return new Builder(Runtime.getRuntime().maxMemory());
    }

    /** The defaults, with the cache budget taken as 10% of this JVM's largest heap. */
    public static StreamConfig defaults() {
        return builder().build();
    }

    /**
     * Reads every key that starts with {@code prefix} (for example {@code "rangefetch."}); other keys are
     * ignored. A key under the prefix that Rangefetch does not know, or a value that does not parse or is out of
     * range, fails here with the key and the value in the message.
     */
    public static StreamConfig fromProperties(Map<String, String> properties, String prefix) {
        requireNonNull(properties, "properties is null");
        requireNonNull(prefix, "prefix is null");
        Builder builder = builder();
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String key = entry.getKey();
            if (!key.startsWith(prefix)) {
                continue;
            }
            Setting<?> setting = SettingsTable.byKey(key.substring(prefix.length()))
                    .orElseThrow(() -> new IllegalArgumentException("Unknown setting '" + key + "'; settings under '"
                            + prefix + "' are: " + String.join(", ", keys())));
            String value = requireNonNull(entry.getValue(), () -> "value of " + key + " is null");
            try {
                builder.parse(setting, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Invalid setting " + key + "=" + value + ": " + e.getMessage(), e);
            }
        }
        return builder.build();
    }

    /** The keys {@link #fromProperties} understands, without prefix, in documentation order. */
    public static Set<String> keys() {
        return SettingsTable.keys();
    }

    /** The value of {@value #MIN_REQUEST_SIZE}. */
    public long minRequestSize() {
        return get(SettingsTable.MIN_REQUEST_SIZE);
    }

    /** The value of {@value #MAX_REQUEST_SIZE}. */
    public long maxRequestSize() {
        return get(SettingsTable.MAX_REQUEST_SIZE);
    }

    /** The value of {@value #SMALL_OBJECT_SIZE}. */
    public long smallObjectSize() {
        return get(SettingsTable.SMALL_OBJECT_SIZE);
    }

    /** The value of {@value #SMALL_OBJECT_PART_SIZE}. */
    public long smallObjectPartSize() {
        return get(SettingsTable.SMALL_OBJECT_PART_SIZE);
    }

    /** The value of {@value #SEQUENTIAL_READS}. */
    public int sequentialReads() {
        return get(SettingsTable.SEQUENTIAL_READS);
    }

    /** The value of {@value #PREFETCH_INITIAL_SIZE}. */
    @Override
    public long prefetchInitialSize() {
        return get(SettingsTable.PREFETCH_INITIAL_SIZE);
    }

    /** The value of {@value #PREFETCH_MAX_SIZE}. */
    public long prefetchMaxSize() {
        return get(SettingsTable.PREFETCH_MAX_SIZE);
    }

    /** The value of {@value #CACHE_MAX_MEMORY}, in bytes (a percentage is resolved against the heap). */
    public long cacheMaxMemory() {
        return get(SettingsTable.CACHE_MAX_MEMORY);
    }

    /** The value of {@value #METADATA_TTL}. */
    public Duration metadataTtl() {
        return get(SettingsTable.METADATA_TTL);
    }

    /** The value of {@value #METADATA_MAX_ENTRIES}. */
    public int metadataMaxEntries() {
        return get(SettingsTable.METADATA_MAX_ENTRIES);
    }

    /** The value of {@value #FETCH_MAX_CONCURRENCY}. */
    public int fetchMaxConcurrency() {
        return get(SettingsTable.FETCH_MAX_CONCURRENCY);
    }

    /** The value of {@value #RETRY_MAX_ATTEMPTS}. */
    public int retryMaxAttempts() {
        return get(SettingsTable.RETRY_MAX_ATTEMPTS);
    }

    /** The value of {@value #RETRY_BASE_DELAY}. */
    public Duration retryBaseDelay() {
        return get(SettingsTable.RETRY_BASE_DELAY);
    }

    /** The value of {@value #RETRY_MAX_DELAY}. */
    public Duration retryMaxDelay() {
        return get(SettingsTable.RETRY_MAX_DELAY);
    }

    /** The value of {@value #RETRY_DEADLINE}. */
    public Duration retryDeadline() {
        return get(SettingsTable.RETRY_DEADLINE);
    }

    /** The value of {@value #RETRY_FIRST_BYTE_TIMEOUT}; zero when attempts wait without limit. */
    public Duration retryFirstByteTimeout() {
        return get(SettingsTable.RETRY_FIRST_BYTE_TIMEOUT);
    }

    /** The value of {@value #RETRY_BETWEEN_BYTES_TIMEOUT}; zero when attempts wait without limit. */
    public Duration retryBetweenBytesTimeout() {
        return get(SettingsTable.RETRY_BETWEEN_BYTES_TIMEOUT);
    }

    /** The value of {@value #READ_DEADLINE}; zero when reads wait without limit. */
    public Duration readDeadline() {
        return get(SettingsTable.READ_DEADLINE);
    }

    /** The value of {@value #THROTTLE_ENABLED}. */
    public boolean throttleEnabled() {
        return get(SettingsTable.THROTTLE_ENABLED);
    }

    /** The value of {@value #THROTTLE_MIN_CONCURRENCY}. */
    public int throttleMinConcurrency() {
        return get(SettingsTable.THROTTLE_MIN_CONCURRENCY);
    }

    /** The value of {@value #THROTTLE_MAX_CONCURRENCY}. */
    public int throttleMaxConcurrency() {
        return get(SettingsTable.THROTTLE_MAX_CONCURRENCY);
    }

    /** The value of {@value #THROTTLE_INCREASE_STEP}. */
    public int throttleIncreaseStep() {
        return get(SettingsTable.THROTTLE_INCREASE_STEP);
    }

    /** The value of {@value #THROTTLE_DECREASE_FACTOR}. */
    public double throttleDecreaseFactor() {
        return get(SettingsTable.THROTTLE_DECREASE_FACTOR);
    }

    /** The value of {@value #THROTTLE_NOISE_TEST}. */
    public boolean throttleNoiseTest() {
        return get(SettingsTable.THROTTLE_NOISE_TEST);
    }

    /** The value of {@value #HEDGE_ENABLED}. */
    public boolean hedgeEnabled() {
        return get(SettingsTable.HEDGE_ENABLED);
    }

    /** The value of {@value #HEDGE_PERCENTILE}. */
    public double hedgePercentile() {
        return get(SettingsTable.HEDGE_PERCENTILE);
    }

    /** The value of {@value #HEDGE_MIN_DELAY}. */
    public Duration hedgeMinDelay() {
        return get(SettingsTable.HEDGE_MIN_DELAY);
    }

    /** The value of {@value #HEDGE_MAX_FRACTION}. */
    public double hedgeMaxFraction() {
        return get(SettingsTable.HEDGE_MAX_FRACTION);
    }

    /** The value of {@value #LIST_PAGE_SIZE}. */
    public int listPageSize() {
        return get(SettingsTable.LIST_PAGE_SIZE);
    }

    /** The value of {@value #LIST_CURSORS}. */
    public int listCursors() {
        return get(SettingsTable.LIST_CURSORS);
    }

    /** The value of {@value #LIST_PARALLELISM}. */
    public int listParallelism() {
        return get(SettingsTable.LIST_PARALLELISM);
    }

    /** The value of {@value #FIRST_BYTE_LATENCY}. */
    public Duration firstByteLatency() {
        return get(SettingsTable.FIRST_BYTE_LATENCY);
    }

    /** The value of {@value #CONNECTION_BANDWIDTH}. */
    public long connectionBandwidth() {
        return get(SettingsTable.CONNECTION_BANDWIDTH);
    }

    /** The value of {@value #VECTORED_MIN_SEEK}. */
    public long vectoredMinSeek() {
        return get(SettingsTable.VECTORED_MIN_SEEK);
    }

    /** The value of {@value #VECTORED_MAX_MERGED_SIZE}. */
    public long vectoredMaxMergedSize() {
        return get(SettingsTable.VECTORED_MAX_MERGED_SIZE);
    }

    /** The value of {@value #VECTORED_DISCARD_TOLERANCE}. */
    public double vectoredDiscardTolerance() {
        return get(SettingsTable.VECTORED_DISCARD_TOLERANCE);
    }

    /**
     * The value of {@value #FORMAT_EXTENSIONS}: which format policy reads a key with which extension, by policy
     * name; extensions are lower case, without the dot, matched at the key's end regardless of case.
     */
    public Map<String, List<String>> formatExtensions() {
        return get(SettingsTable.FORMAT_EXTENSIONS);
    }

    /**
     * The value of {@value #FORMAT_COMPRESSED_EXTENSIONS}: compression suffixes after a known extension
     * ({@code data.csv.gz}), lower case, without the dot.
     */
    public List<String> formatCompressedExtensions() {
        return get(SettingsTable.FORMAT_COMPRESSED_EXTENSIONS);
    }

    /** The value of {@value #ORC_TAIL_SIZE}. */
    public long orcTailSize() {
        return get(SettingsTable.ORC_TAIL_SIZE);
    }

    /** The value of {@value #PARQUET_FOOTER_PRECACHE_SIZE}. */
    public long parquetFooterPrecacheSize() {
        return get(SettingsTable.PARQUET_FOOTER_PRECACHE_SIZE);
    }

    /** The value of {@value #PARQUET_LARGE_FOOTER_PRECACHE_SIZE}. */
    public long parquetLargeFooterPrecacheSize() {
        return get(SettingsTable.PARQUET_LARGE_FOOTER_PRECACHE_SIZE);
    }

    /** The value of {@value #PARQUET_WHOLE_FILE_SIZE}. */
    public long parquetWholeFileSize() {
        return get(SettingsTable.PARQUET_WHOLE_FILE_SIZE);
    }

    /** The value of {@value #PARQUET_LARGE_FILE_SIZE}. */
    public long parquetLargeFileSize() {
        return get(SettingsTable.PARQUET_LARGE_FILE_SIZE);
    }

    /** The cost model the derived vectored sizes and the parallel part sizes follow from. */
    RequestCostModel requestCostModel() {
        return new RequestCostModel(firstByteLatency(), connectionBandwidth());
    }

    /** How the engine tries a GET or HEAD again (see {@code retry.*}). */
    RetrySettings retrySettings() {
        return new RetrySettings(retryMaxAttempts(), retryBaseDelay(), retryMaxDelay(), retryDeadline());
    }

    /**
     * Retries, timeouts, the read deadline, the throttle governors and hedging. A governor starts at its ceiling or
     * at the factory's fetch concurrency, whichever is lower: the requests a factory sends at once.
     */
    Resilience resilience() {
        return new Resilience(retrySettings(), retryFirstByteTimeout(), retryBetweenBytesTimeout(), readDeadline(),
                new ThrottleSettings(throttleEnabled(), throttleMinConcurrency(), throttleMaxConcurrency(),
                        fetchMaxConcurrency(), throttleIncreaseStep(), throttleDecreaseFactor(),
                        throttleNoiseTest()),
                new HedgeSettings(hedgeEnabled(), hedgePercentile(), hedgeMinDelay(), hedgeMaxFraction()));
    }

    /**
     * The planner's limits. A prefetch window is cut into as many parts as the fetch concurrency, each at least
     * one first-byte latency's worth of bytes ({@link RequestCostModel#minPartSize}).
     */
    PlannerSettings plannerSettings() {
        return new PlannerSettings(minRequestSize(), maxRequestSize(), smallObjectSize(), sequentialReads(),
                prefetchInitialSize(), prefetchMaxSize(), fetchMaxConcurrency(), minPartSize(),
                smallObjectPartSize());
    }

    /**
     * The coalescer's limits: merged requests are cut into parallel parts by the same rule as prefetch windows,
     * and split at gaps of at least the minimum request while connections would otherwise stay idle (a gap
     * below it costs less to read than the request skipping it).
     */
    CoalescerSettings coalescerSettings() {
        return new CoalescerSettings(vectoredMinSeek(), vectoredMaxMergedSize(), maxRequestSize(),
                vectoredDiscardTolerance(), minPartSize(), fetchMaxConcurrency(), minRequestSize());
    }

    private long minPartSize() {
        return requestCostModel().minPartSize(minRequestSize(), maxRequestSize());
    }

    /** The value of one setting; the table's types make the cast safe (values go in only through set). */
    @SuppressWarnings("unchecked")
    <T> T get(Setting<T> setting) {
        return (T) values.get(setting);
    }

    @Override
    public String toString() {
        StringJoiner settings = new StringJoiner(", ", "StreamConfig{", "}");
        for (Setting<?> setting : SettingsTable.all()) {
            settings.add(setting.key() + "=" + values.get(setting));
        }
        return settings.toString();
    }

    /** Not thread-safe. Each setting may be given once. */
    public static final class Builder {
        private final long maxHeapBytes;
        // The defaults, then what was given; build() resolves the derived settings, given or not.
        private final Map<Setting<?>, Object> values = new HashMap<>();
        private final Set<Setting<?>> given = new HashSet<>();

        private Builder(long maxHeapBytes) {
            this.maxHeapBytes = maxHeapBytes;
            for (Setting<?> setting : SettingsTable.all()) {
                setting.defaultValue(maxHeapBytes).ifPresent(value -> values.put(setting, value));
            }
        }

        public Builder minRequestSize(long bytes) {
            return set(SettingsTable.MIN_REQUEST_SIZE, bytes);
        }

        public Builder maxRequestSize(long bytes) {
            return set(SettingsTable.MAX_REQUEST_SIZE, bytes);
        }

        public Builder smallObjectSize(long bytes) {
            return set(SettingsTable.SMALL_OBJECT_SIZE, bytes);
        }

        public Builder smallObjectPartSize(long bytes) {
            return set(SettingsTable.SMALL_OBJECT_PART_SIZE, bytes);
        }

        public Builder sequentialReads(int reads) {
            return set(SettingsTable.SEQUENTIAL_READS, reads);
        }

        public Builder prefetchInitialSize(long bytes) {
            return set(SettingsTable.PREFETCH_INITIAL_SIZE, bytes);
        }

        public Builder prefetchMaxSize(long bytes) {
            return set(SettingsTable.PREFETCH_MAX_SIZE, bytes);
        }

        public Builder cacheMaxMemory(long bytes) {
            return set(SettingsTable.CACHE_MAX_MEMORY, bytes);
        }

        public Builder metadataTtl(Duration ttl) {
            return set(SettingsTable.METADATA_TTL, requireNonNull(ttl, "ttl is null"));
        }

        public Builder metadataMaxEntries(int entries) {
            return set(SettingsTable.METADATA_MAX_ENTRIES, entries);
        }

        public Builder fetchMaxConcurrency(int requests) {
            return set(SettingsTable.FETCH_MAX_CONCURRENCY, requests);
        }

        /** Attempts per GET or HEAD, the first included; 1 turns retries off. */
        public Builder retryMaxAttempts(int attempts) {
            return set(SettingsTable.RETRY_MAX_ATTEMPTS, attempts);
        }

        public Builder retryBaseDelay(Duration delay) {
            return set(SettingsTable.RETRY_BASE_DELAY, requireNonNull(delay, "delay is null"));
        }

        public Builder retryMaxDelay(Duration delay) {
            return set(SettingsTable.RETRY_MAX_DELAY, requireNonNull(delay, "delay is null"));
        }

        public Builder retryDeadline(Duration deadline) {
            return set(SettingsTable.RETRY_DEADLINE, requireNonNull(deadline, "deadline is null"));
        }

        /** Per attempt: how long to wait for the answer to begin; {@link Duration#ZERO} waits without limit. */
        public Builder retryFirstByteTimeout(Duration timeout) {
            return set(SettingsTable.RETRY_FIRST_BYTE_TIMEOUT, requireNonNull(timeout, "timeout is null"));
        }

        /** Per attempt: how long a body may stall; {@link Duration#ZERO} waits without limit. */
        public Builder retryBetweenBytesTimeout(Duration timeout) {
            return set(SettingsTable.RETRY_BETWEEN_BYTES_TIMEOUT, requireNonNull(timeout, "timeout is null"));
        }

        /** Per read call: how long it may wait in all; {@link Duration#ZERO} waits without limit. */
        public Builder readDeadline(Duration deadline) {
            return set(SettingsTable.READ_DEADLINE, requireNonNull(deadline, "deadline is null"));
        }

        public Builder throttleEnabled(boolean enabled) {
            return set(SettingsTable.THROTTLE_ENABLED, enabled);
        }

        public Builder throttleMinConcurrency(int requests) {
            return set(SettingsTable.THROTTLE_MIN_CONCURRENCY, requests);
        }

        public Builder throttleMaxConcurrency(int requests) {
            return set(SettingsTable.THROTTLE_MAX_CONCURRENCY, requests);
        }

        public Builder throttleIncreaseStep(int requests) {
            return set(SettingsTable.THROTTLE_INCREASE_STEP, requests);
        }

        public Builder throttleDecreaseFactor(double factor) {
            return set(SettingsTable.THROTTLE_DECREASE_FACTOR, factor);
        }

        public Builder throttleNoiseTest(boolean tests) {
            return set(SettingsTable.THROTTLE_NOISE_TEST, tests);
        }

        public Builder hedgeEnabled(boolean enabled) {
            return set(SettingsTable.HEDGE_ENABLED, enabled);
        }

        public Builder hedgePercentile(double percentile) {
            return set(SettingsTable.HEDGE_PERCENTILE, percentile);
        }

        public Builder hedgeMinDelay(Duration delay) {
            return set(SettingsTable.HEDGE_MIN_DELAY, requireNonNull(delay, "delay is null"));
        }

        public Builder hedgeMaxFraction(double fraction) {
            return set(SettingsTable.HEDGE_MAX_FRACTION, fraction);
        }

        public Builder listPageSize(int keys) {
            return set(SettingsTable.LIST_PAGE_SIZE, keys);
        }

        public Builder listCursors(int cursors) {
            return set(SettingsTable.LIST_CURSORS, cursors);
        }

        public Builder listParallelism(int requests) {
            return set(SettingsTable.LIST_PARALLELISM, requests);
        }

        /** The first-byte latency of a GET under the cost model; the default is fitted to S3 in-region. */
        public Builder firstByteLatency(Duration latency) {
            return set(SettingsTable.FIRST_BYTE_LATENCY, requireNonNull(latency, "latency is null"));
        }

        /** The bytes per second one GET stream delivers under the cost model; the default is fitted to S3. */
        public Builder connectionBandwidth(long bytesPerSecond) {
            return set(SettingsTable.CONNECTION_BANDWIDTH, bytesPerSecond);
        }

        /** Overrides the gap derived from the network model (latency × bandwidth). */
        public Builder vectoredMinSeek(long bytes) {
            return set(SettingsTable.VECTORED_MIN_SEEK, bytes);
        }

        /** Overrides the merged-request cap derived from the network model. */
        public Builder vectoredMaxMergedSize(long bytes) {
            return set(SettingsTable.VECTORED_MAX_MERGED_SIZE, bytes);
        }

        public Builder vectoredDiscardTolerance(double fraction) {
            return set(SettingsTable.VECTORED_DISCARD_TOLERANCE, fraction);
        }

        /**
         * Which policy reads which key extensions, by policy name (replaces the default mapping); see
         * {@link StreamConfig#formatExtensions()}. An extension may belong to one policy only.
         */
        public Builder formatExtensions(Map<String, List<String>> extensionsByPolicy) {
            return set(SettingsTable.FORMAT_EXTENSIONS, requireNonNull(extensionsByPolicy, "extensionsByPolicy is null"));
        }

        public Builder formatCompressedExtensions(List<String> extensions) {
            return set(SettingsTable.FORMAT_COMPRESSED_EXTENSIONS, requireNonNull(extensions, "extensions is null"));
        }

        public Builder orcTailSize(long bytes) {
            return set(SettingsTable.ORC_TAIL_SIZE, bytes);
        }

        public Builder parquetFooterPrecacheSize(long bytes) {
            return set(SettingsTable.PARQUET_FOOTER_PRECACHE_SIZE, bytes);
        }

        public Builder parquetLargeFooterPrecacheSize(long bytes) {
            return set(SettingsTable.PARQUET_LARGE_FOOTER_PRECACHE_SIZE, bytes);
        }

        public Builder parquetWholeFileSize(long bytes) {
            return set(SettingsTable.PARQUET_WHOLE_FILE_SIZE, bytes);
        }

        public Builder parquetLargeFileSize(long bytes) {
            return set(SettingsTable.PARQUET_LARGE_FILE_SIZE, bytes);
        }

        /** Checks the settings against each other and derives the vectored-read sizes not given. */
        public StreamConfig build() {
            long minRequestSize = get(SettingsTable.MIN_REQUEST_SIZE);
            long maxRequestSize = get(SettingsTable.MAX_REQUEST_SIZE);
            if (maxRequestSize < 2 * minRequestSize) {
                throw new IllegalArgumentException(MAX_REQUEST_SIZE + " (" + maxRequestSize + ") must be at least twice "
                        + MIN_REQUEST_SIZE + " (" + minRequestSize + ") so that split parts stay above the minimum");
            }
            long smallObjectPartSize = get(SettingsTable.SMALL_OBJECT_PART_SIZE);
            if (smallObjectPartSize < minRequestSize || smallObjectPartSize > maxRequestSize) {
                throw new IllegalArgumentException(SMALL_OBJECT_PART_SIZE + " (" + smallObjectPartSize
                        + ") must be between " + MIN_REQUEST_SIZE + " (" + minRequestSize + ") and "
                        + MAX_REQUEST_SIZE + " (" + maxRequestSize + ")");
            }
            long prefetchInitialSize = get(SettingsTable.PREFETCH_INITIAL_SIZE);
            if (prefetchInitialSize < minRequestSize) {
                throw new IllegalArgumentException(PREFETCH_INITIAL_SIZE + " (" + prefetchInitialSize + ") must be at least "
                        + MIN_REQUEST_SIZE + " (" + minRequestSize + ")");
            }
            long prefetchMaxSize = get(SettingsTable.PREFETCH_MAX_SIZE);
            if (prefetchMaxSize > 0 && prefetchMaxSize < prefetchInitialSize) {
                throw new IllegalArgumentException(PREFETCH_MAX_SIZE + " (" + prefetchMaxSize + ") must be 0 (no prefetch) "
                        + "or at least " + PREFETCH_INITIAL_SIZE + " (" + prefetchInitialSize + ")");
            }
            int throttleMin = get(SettingsTable.THROTTLE_MIN_CONCURRENCY);
            int throttleMax = get(SettingsTable.THROTTLE_MAX_CONCURRENCY);
            if (throttleMax < throttleMin) {
                throw new IllegalArgumentException(THROTTLE_MAX_CONCURRENCY + " (" + throttleMax + ") must be at least "
                        + THROTTLE_MIN_CONCURRENCY + " (" + throttleMin + ")");
            }
            RequestCostModel network = new RequestCostModel(get(SettingsTable.FIRST_BYTE_LATENCY),
                    get(SettingsTable.CONNECTION_BANDWIDTH));
            long minSeek = resolveMinSeek(network);
            Map<Setting<?>, Object> built = new HashMap<>(values);
            built.put(SettingsTable.VECTORED_MIN_SEEK, minSeek);
            built.put(SettingsTable.VECTORED_MAX_MERGED_SIZE, resolveMaxMergedSize(network, minSeek, maxRequestSize));
            return new StreamConfig(built);
        }

        /**
         * Latency × bandwidth: the bytes a connection could have moved while a new GET waits for its first
         * byte, so reading through a gap that size costs no more time than skipping it with another request.
         * Yields to an explicit max-merged size, which it must not exceed.
         */
        private long resolveMinSeek(RequestCostModel network) {
            if (given.contains(SettingsTable.VECTORED_MIN_SEEK)) {
                return get(SettingsTable.VECTORED_MIN_SEEK);
            }
            long derived = Math.min(Checks.MAX_REQUEST_BYTES, network.bytesIn(1));
            return given.contains(SettingsTable.VECTORED_MAX_MERGED_SIZE)
                    ? Math.min(derived, get(SettingsTable.VECTORED_MAX_MERGED_SIZE))
                    : derived;
        }

        /**
         * What one connection moves in a few first-byte latencies, at least one maximal request (a smaller cap
         * would split what one GET could carry) and at least the min-seek gap (which must fit in a merged
         * request), at most 1 GiB. Explicit values are only checked against each other.
         */
        private long resolveMaxMergedSize(RequestCostModel network, long minSeek, long maxRequestSize) {
            if (given.contains(SettingsTable.VECTORED_MAX_MERGED_SIZE)) {
                long maxMergedSize = get(SettingsTable.VECTORED_MAX_MERGED_SIZE);
                if (maxMergedSize < minSeek) {
                    throw new IllegalArgumentException(VECTORED_MAX_MERGED_SIZE + " (" + maxMergedSize
                            + ") must be at least " + VECTORED_MIN_SEEK + " (" + minSeek + "): a gap worth reading "
                            + "through must fit in a merged request");
                }
                return maxMergedSize;
            }
            long derived = Math.max(network.bytesIn(ROUND_TRIPS_PER_MERGED_REQUEST), minSeek);
            return Math.min(Checks.MAX_REQUEST_BYTES, Math.max(maxRequestSize, derived));
        }

        /** Parses a text value of {@code setting} and gives it, as fromProperties does for each key. */
        <T> void parse(Setting<T> setting, String value) {
            set(setting, setting.parse(value, maxHeapBytes));
        }

        private <T> Builder set(Setting<T> setting, T value) {
            if (!given.add(setting)) {
                throw new IllegalStateException(setting.key() + " was already set");
            }
            values.put(setting, setting.check(value));
            return this;
        }

        @SuppressWarnings("unchecked")
        private <T> T get(Setting<T> setting) {
            return (T) values.get(setting);
        }
    }
}
