package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.config.Checks;
import io.rangefetch.internal.config.ConfigValues;
import io.rangefetch.internal.plan.RequestCostModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * The settings of a {@link StreamFactory}: immutable, built with {@link #builder()} or read from properties with
 * {@link #fromProperties(Map, String)}, read with {@link #get(Setting)}. Every key, default and range is listed
 * in docs/CONFIGURATION.md.
 *
 * <p>Design note. Each setting is declared once, as a constant below: key, default, parser, range and the line
 * its documentation opens with ({@link Setting}). A format policy declares its own settings
 * ({@code FormatPolicy.settings()}, namespaced by its name), so a format adds keys without touching this class:
 * {@link #fromProperties} and {@link #keys()} know the settings of the policies a factory loads, and the builder
 * takes any setting. Nothing else is written per setting: {@code get} and {@code set} serve them all, and the
 * engine's settings records are built from these in one place ({@code EngineSettings}). The declarations are
 * most of this file's length: they are the reference, in documentation order.
 *
 * <p>What one declaration cannot say stays in {@link Builder#build()}: checks of one setting against another, and
 * the two vectored sizes derived from the network model when not given (their declarations have no default).
 * Like Caffeine's builder, the builder refuses a setting given twice (one of the two would be silently lost) and
 * settings that contradict each other, naming the values.
 */
public final class StreamConfig {
    // Filled by declare() as the constants below are initialized, in the order they are written.
    private static final List<Setting<?>> DECLARED = new ArrayList<>();

    public static final Setting<Long> MIN_REQUEST_SIZE = declare(Setting.size(
            "read.min-request-size",
            "64KiB",
            1,
            "No GET is smaller, unless it reaches the object's end, fills the whole gap between two cached "
                    + "ranges, or is a read's own in a stream that adapted its minimum down."));
    public static final Setting<Long> MAX_REQUEST_SIZE =
            declare(Setting.requestSize("read.max-request-size", "8MiB", 2, "No GET is larger."));
    public static final Setting<Long> SMALL_OBJECT_SIZE = declare(Setting.requestSize(
            "read.small-object-size",
            "8MiB",
            0,
            "An object of at most this many bytes is fetched whole on its first read."));
    public static final Setting<Long> SMALL_OBJECT_PART_SIZE = declare(Setting.size(
            "read.small-object-part-size",
            "512KiB",
            1,
            "A small object read whole comes in parallel parts of at least this size, as many as the factory's "
                    + "idle connections allow."));
    public static final Setting<Integer> SEQUENTIAL_READS = declare(Setting.count(
            "prefetch.sequential-reads",
            "2",
            1,
            Integer.MAX_VALUE,
            "How many streaming reads in a row, each starting where the previous one ended, make a stream "
                    + "sequential."));
    public static final Setting<Long> PREFETCH_INITIAL_SIZE = declare(Setting.size(
            "prefetch.initial-size", "4MiB", 1, "The prefetch window a stream gets when it becomes sequential."));
    public static final Setting<Long> PREFETCH_MAX_SIZE = declare(
            Setting.size("prefetch.max-size", "64MiB", 0, "The largest prefetch window a sequential stream grows to."));
    public static final Setting<Long> CACHE_MAX_MEMORY = declare(Setting.memory(
            "cache.max-memory", "10%", 1, "Bytes the factory's block cache may hold, requests in flight included."));
    public static final Setting<Duration> METADATA_TTL = declare(Setting.duration(
            "metadata.ttl",
            "60s",
            "How long a learned length and ETag are trusted when the same object is opened again."));
    public static final Setting<Duration> FACTORY_LINGER = declare(Setting.duration(
            "factory.linger",
            "5m",
            "How long a factory the adapters share (one per identity and settings) stays open after its last user "
                    + "let it go, so the next one finds its cache warm; 0s closes it at once."));
    public static final Setting<Integer> METADATA_MAX_ENTRIES = declare(Setting.count(
            "metadata.max-entries",
            "10000",
            0,
            Integer.MAX_VALUE,
            "How many objects' lengths and ETags the factory remembers."));
    public static final Setting<Integer> FETCH_MAX_CONCURRENCY = declare(Setting.count(
            "fetch.max-concurrency", "16", 1, 1024, "GETs in flight at once across all the factory's streams."));
    public static final Setting<Integer> RETRY_MAX_ATTEMPTS = declare(Setting.count(
            "retry.max-attempts",
            "8",
            1,
            100,
            "How many times one GET or HEAD is sent at most, its first attempt included; 1 turns retries off."));
    public static final Setting<Duration> RETRY_BASE_DELAY = declare(Setting.duration(
            "retry.base-delay",
            "50ms",
            "The most a first retry waits; each further retry may wait up to twice as long as the one before."));
    public static final Setting<Duration> RETRY_MAX_DELAY =
            declare(Setting.duration("retry.max-delay", "2s", "The most any retry waits."));
    public static final Setting<Duration> RETRY_DEADLINE = declare(Setting.duration(
            "retry.deadline", "30s", "No retry of a request starts later than this after its first attempt."));
    public static final Setting<Duration> RETRY_FIRST_BYTE_TIMEOUT = declare(Setting.duration(
            "retry.first-byte-timeout",
            "10s",
            "How long one attempt waits for its answer to begin before it is given up and retried; 0s waits "
                    + "without limit."));
    public static final Setting<Duration> RETRY_BETWEEN_BYTES_TIMEOUT = declare(Setting.duration(
            "retry.between-bytes-timeout",
            "10s",
            "How long one attempt may go without receiving a body byte before it is cut and resumed; 0s waits "
                    + "without limit."));
    public static final Setting<Duration> READ_DEADLINE = declare(Setting.duration(
            "read.deadline",
            "2m",
            "The longest one read call waits for its bytes, queueing, retries and backoff included; 0s waits "
                    + "without limit."));
    public static final Setting<Boolean> THROTTLE_ENABLED = declare(Setting.flag(
            "throttle.enabled",
            "true",
            "Whether a governor per bucket limits the requests in flight, lowering the limit when S3 answers 503."));
    public static final Setting<Integer> THROTTLE_MIN_CONCURRENCY = declare(Setting.count(
            "throttle.min-concurrency", "2", 1, 4096, "The lowest limit the governor of a bucket goes down to."));
    public static final Setting<Integer> THROTTLE_MAX_CONCURRENCY = declare(Setting.count(
            "throttle.max-concurrency", "64", 1, 4096, "The highest limit the governor of a bucket goes up to."));
    public static final Setting<Integer> THROTTLE_INCREASE_STEP = declare(Setting.count(
            "throttle.increase-step",
            "1",
            1,
            4096,
            "How much the limit grows after a round of requests without a 503 (one round: as many answers as "
                    + "the limit)."));
    public static final Setting<Double> THROTTLE_DECREASE_FACTOR = declare(Setting.of(
            "throttle.decrease-factor",
            "0.5",
            ConfigValues::parseFraction,
            Checks.fractionBetween(0, 1, false),
            "What the limit is multiplied by when S3 answers 503, at most once a round."));
    public static final Setting<Boolean> THROTTLE_NOISE_TEST = declare(Setting.flag(
            "throttle.noise-test",
            "true",
            "Whether each decrease tests that the 503s track the load, and 503s that keep coming at a lower load are "
                    + "left to retries instead of lowering the limit."));
    public static final Setting<Boolean> HEDGE_ENABLED = declare(Setting.flag(
            "hedge.enabled",
            "true",
            "Whether a GET whose answer is slow to begin is sent a second time, the first answer winning."));
    public static final Setting<Double> HEDGE_PERCENTILE = declare(Setting.fraction(
            "hedge.percentile",
            "0.95",
            0.5,
            0.999,
            "A GET is sent again when its first byte is later than this percentile of the recent first-byte "
                    + "latencies of GETs of its size."));
    public static final Setting<Duration> HEDGE_MIN_DELAY = declare(
            Setting.duration("hedge.min-delay", "30ms", "No GET is sent again sooner than this after it was sent."));
    public static final Setting<Double> HEDGE_MAX_FRACTION = declare(Setting.fraction(
            "hedge.max-fraction", "0.05", 0, 0.5, "Second sends are at most this fraction of the GETs sent."));
    // S3 answers at most 1,000 keys a page; asking for fewer only adds calls.
    public static final Setting<Integer> LIST_PAGE_SIZE = declare(Setting.count(
            "list.page-size",
            "1000",
            1,
            1000,
            "How many keys a listing asks for in one ListObjectsV2 request (S3 answers at most 1,000)."));
    public static final Setting<Integer> LIST_CURSORS = declare(Setting.count(
            "list.cursors",
            "16",
            1,
            4096,
            "The most cursors one listing is split into, each over its own common prefix, skipping with "
                    + "StartAfter."));
    public static final Setting<Integer> LIST_PARALLELISM = declare(Setting.count(
            "list.parallelism",
            "8",
            1,
            4096,
            "The most ListObjectsV2 requests one listing has in flight (within fetch.max-concurrency and the "
                    + "throttle governors)."));
    // S3 in-region: the first byte of a GET arrives after about 20 to 100 ms.
    public static final Setting<Duration> FIRST_BYTE_LATENCY = declare(Setting.duration(
            "network.first-byte-latency",
            "30ms",
            "The cost model's price of one request: how long a GET waits for its first byte."));
    // S3: one GET stream delivers about 85 to 90 MB/s; 85 MiB/s is 89.1 MB/s.
    public static final Setting<Long> CONNECTION_BANDWIDTH = declare(Setting.rate(
            "network.connection-bandwidth",
            "85MB/s",
            1,
            "The cost model's price per byte: what one GET stream delivers once it flows."));
    public static final Setting<Long> VECTORED_MIN_SEEK = declare(Setting.derivedRequestSize(
            "vectored.min-seek",
            0,
            "A vectored read fetches a gap of at most this many bytes between two of its ranges in the same GET "
                    + "rather than send another one."));
    public static final Setting<Long> VECTORED_MAX_MERGED_SIZE = declare(Setting.derivedRequestSize(
            "vectored.max-merged-size", 1, "No request merged from several ranges spans more."));
    public static final Setting<Double> VECTORED_DISCARD_TOLERANCE = declare(Setting.of(
            "vectored.discard-tolerance",
            "0.25",
            ConfigValues::parseFraction,
            Checks.finiteFraction(),
            "When the gap bytes a merged request fetched only to save GETs exceed this fraction of the bytes "
                    + "asked for, they are dropped as soon as they are read instead of cached."));
    public static final Setting<Map<String, List<String>>> FORMAT_EXTENSIONS = declare(Setting.of(
            "format.extensions",
            "parquet:parquet,parq;orc:orc;text:csv,tsv,json,jsonl,ndjson,txt,log",
            ConfigValues::parseFormatExtensions,
            ConfigValues::checkedFormatExtensions,
            "Which format policy reads a key, by the extension at the key's very end."));
    public static final Setting<List<String>> FORMAT_COMPRESSED_EXTENSIONS = declare(Setting.of(
            "format.compressed-extensions",
            "gz,bz2,zst,lz4,snappy,deflate,xz,br",
            ConfigValues::parseExtensions,
            ConfigValues::checkedExtensions,
            "A key ending in a known extension followed by one of these is read by the text policy, front to "
                    + "back."));

    /**
     * The derived {@code vectored.max-merged-size} is what one connection moves in this many first-byte
     * latencies: merging saves one latency, which is then at most a fifth of the merged request's time.
     */
    static final int ROUND_TRIPS_PER_MERGED_REQUEST = 4;

    // Every setting's value: each of the settings declared here (derived ones resolved), and any other given.
    private final Map<Setting<?>, Object> values;

    private StreamConfig(Map<Setting<?>, Object> values) {
        this.values = Map.copyOf(values);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The defaults, with the cache budget taken as 10% of this JVM's largest heap. */
    public static StreamConfig defaults() {
        return builder().build();
    }

    /**
     * Reads every key that starts with {@code prefix} (for example {@code "rangefetch."}); other keys are
     * ignored. A key under the prefix that Rangefetch does not know (a key of this class or of a loaded format
     * policy), or a value that does not parse or is out of range, fails here with the key and the value in the
     * message.
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
            Setting<?> setting = Known.BY_KEY.get(key.substring(prefix.length()));
            if (setting == null) {
                throw new IllegalArgumentException("Unknown setting '" + key + "'; settings under '" + prefix
                        + "' are: " + String.join(", ", keys()));
            }
            String value = requireNonNull(entry.getValue(), () -> "value of " + key + " is null");
            try {
                builder.parse(setting, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Invalid setting " + key + "=" + value + ": " + e.getMessage(), e);
            }
        }
        return builder.build();
    }

    /**
     * The keys {@link #fromProperties} understands, without prefix, in documentation order: those declared here,
     * then those of the format policies a factory loads.
     */
    public static Set<String> keys() {
        return Known.BY_KEY.keySet();
    }

    /** The value of {@code setting}: as given, else derived or its default. */
    @SuppressWarnings("unchecked") // values go in only through Builder.set, which takes a T for a Setting<T>
    public <T> T get(Setting<T> setting) {
        requireNonNull(setting, "setting is null");
        Object value = values.get(setting);
        return value != null
                ? (T) value
                : setting.defaultValue()
                        .orElseThrow(() -> new IllegalStateException(
                                setting.key() + " is derived, and not by this configuration"));
    }

    /** The settings declared here, in documentation order. */
    static List<Setting<?>> declared() {
        return Collections.unmodifiableList(DECLARED);
    }

    @Override
    public String toString() {
        StringJoiner settings = new StringJoiner(", ", "StreamConfig{", "}");
        for (Setting<?> setting : Known.BY_KEY.values()) {
            settings.add(setting.key() + "=" + get(setting));
        }
        values.keySet().stream()
                .filter(setting -> Known.BY_KEY.get(setting.key()) != setting)
                .forEach(setting -> settings.add(setting.key() + "=" + get(setting)));
        return settings.toString();
    }

    private static <T> Setting<T> declare(Setting<T> setting) {
        DECLARED.add(setting);
        return setting;
    }

    /**
     * Every setting {@link #fromProperties} reads, by key: found once, the first time it is needed, since the
     * policies a factory loads are those on this class loader's path.
     */
    private static final class Known {
        static final Map<String, Setting<?>> BY_KEY;

        static {
            Map<String, Setting<?>> byKey = new LinkedHashMap<>();
            for (Setting<?> setting : DECLARED) {
                if (byKey.putIfAbsent(setting.key(), setting) != null) {
                    throw new IllegalStateException("Two settings have the key " + setting.key());
                }
            }
            InstalledFormatPolicies.loadedSettings(byKey.keySet())
                    .forEach(setting -> byKey.put(setting.key(), setting));
            BY_KEY = Collections.unmodifiableMap(byKey);
        }
    }

    /** Not thread-safe. Each setting may be given once. */
    public static final class Builder {
        private final Map<Setting<?>, Object> given = new HashMap<>();

        private Builder() {}

        /**
         * Gives {@code setting} its value.
         *
         * @throws IllegalStateException when the setting was given already
         * @throws IllegalArgumentException naming the key and the value when the value is out of range
         */
        public <T> Builder set(Setting<T> setting, T value) {
            requireNonNull(setting, "setting is null");
            if (given.containsKey(setting)) {
                throw new IllegalStateException(setting.key() + " was already set");
            }
            given.put(setting, setting.check(value));
            return this;
        }

        /** Gives a {@code long} setting an {@code int} as well: {@code set(MIN_REQUEST_SIZE, 64 << 10)}. */
        public Builder set(Setting<Long> setting, long value) {
            return set(setting, Long.valueOf(value));
        }

        /** Gives a fraction setting a whole number as well: {@code set(VECTORED_DISCARD_TOLERANCE, 0)}. */
        public Builder set(Setting<Double> setting, double value) {
            return set(setting, Double.valueOf(value));
        }

        /** Checks the settings against each other and derives the vectored-read sizes not given. */
        public StreamConfig build() {
            long minRequestSize = value(MIN_REQUEST_SIZE);
            long maxRequestSize = value(MAX_REQUEST_SIZE);
            if (maxRequestSize < 2 * minRequestSize) {
                throw new IllegalArgumentException(
                        MAX_REQUEST_SIZE + " (" + maxRequestSize + ") must be at least twice " + MIN_REQUEST_SIZE + " ("
                                + minRequestSize + ") so that split parts stay above the minimum");
            }
            long smallObjectPartSize = value(SMALL_OBJECT_PART_SIZE);
            if (smallObjectPartSize < minRequestSize || smallObjectPartSize > maxRequestSize) {
                throw new IllegalArgumentException(SMALL_OBJECT_PART_SIZE + " (" + smallObjectPartSize
                        + ") must be between " + MIN_REQUEST_SIZE + " (" + minRequestSize + ") and "
                        + MAX_REQUEST_SIZE + " (" + maxRequestSize + ")");
            }
            long prefetchInitialSize = value(PREFETCH_INITIAL_SIZE);
            if (prefetchInitialSize < minRequestSize) {
                throw new IllegalArgumentException(PREFETCH_INITIAL_SIZE + " (" + prefetchInitialSize
                        + ") must be at least " + MIN_REQUEST_SIZE + " (" + minRequestSize + ")");
            }
            long prefetchMaxSize = value(PREFETCH_MAX_SIZE);
            if (prefetchMaxSize > 0 && prefetchMaxSize < prefetchInitialSize) {
                throw new IllegalArgumentException(
                        PREFETCH_MAX_SIZE + " (" + prefetchMaxSize + ") must be 0 (no prefetch) " + "or at least "
                                + PREFETCH_INITIAL_SIZE + " (" + prefetchInitialSize + ")");
            }
            int throttleMin = value(THROTTLE_MIN_CONCURRENCY);
            int throttleMax = value(THROTTLE_MAX_CONCURRENCY);
            if (throttleMax < throttleMin) {
                throw new IllegalArgumentException(THROTTLE_MAX_CONCURRENCY + " (" + throttleMax + ") must be at least "
                        + THROTTLE_MIN_CONCURRENCY + " (" + throttleMin + ")");
            }
            RequestCostModel network = new RequestCostModel(value(FIRST_BYTE_LATENCY), value(CONNECTION_BANDWIDTH));
            long minSeek = resolveMinSeek(network);
            Map<Setting<?>, Object> built = new HashMap<>(given);
            for (Setting<?> setting : DECLARED) {
                setting.defaultValue().ifPresent(value -> built.putIfAbsent(setting, value));
            }
            built.put(VECTORED_MIN_SEEK, minSeek);
            built.put(VECTORED_MAX_MERGED_SIZE, resolveMaxMergedSize(network, minSeek, maxRequestSize));
            return new StreamConfig(built);
        }

        /**
         * Latency × bandwidth: the bytes a connection could have moved while a new GET waits for its first
         * byte, so reading through a gap that size costs no more time than skipping it with another request.
         * Yields to an explicit max-merged size, which it must not exceed.
         */
        private long resolveMinSeek(RequestCostModel network) {
            if (given.containsKey(VECTORED_MIN_SEEK)) {
                return value(VECTORED_MIN_SEEK);
            }
            long derived = Math.min(Checks.MAX_REQUEST_BYTES, network.bytesIn(1));
            return given.containsKey(VECTORED_MAX_MERGED_SIZE)
                    ? Math.min(derived, value(VECTORED_MAX_MERGED_SIZE))
                    : derived;
        }

        /**
         * What one connection moves in a few first-byte latencies, at least one maximal request (a smaller cap
         * would split what one GET could carry) and at least the min-seek gap (which must fit in a merged
         * request), at most 1 GiB. Explicit values are only checked against each other.
         */
        private long resolveMaxMergedSize(RequestCostModel network, long minSeek, long maxRequestSize) {
            if (given.containsKey(VECTORED_MAX_MERGED_SIZE)) {
                long maxMergedSize = value(VECTORED_MAX_MERGED_SIZE);
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
            set(setting, setting.parse(value));
        }

        /** What was given, else the default (not for a derived setting not given: the caller checks). */
        @SuppressWarnings("unchecked") // values go in only through set, which takes a T for a Setting<T>
        private <T> T value(Setting<T> setting) {
            Object value = given.get(setting);
            return value != null ? (T) value : setting.defaultValue().orElseThrow();
        }
    }
}
