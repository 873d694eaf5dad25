package io.rangefetch;

import static io.rangefetch.internal.config.Checks.atLeast;
import static io.rangefetch.internal.config.Checks.between;
import static io.rangefetch.internal.config.Checks.finiteFraction;
import static io.rangefetch.internal.config.Checks.notNegative;
import static io.rangefetch.internal.config.Checks.requestSize;

import io.rangefetch.internal.config.Checks;
import io.rangefetch.internal.config.ConfigValues;
import io.rangefetch.internal.config.Setting;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every setting of {@link StreamConfig}, each written once: its key, its default as docs/CONFIGURATION.md
 * writes it, its parser, its range and the line its documentation opens with.
 *
 * <p>Design note. A key used to be written eight times (key constant, default constant, field, constructor
 * line, parser entry, builder check, getter, documentation row), and the copies could drift apart: a default
 * changed in code and not in the documentation, a range checked by the builder method and not for the value
 * read from properties. Here the entry is the one description. {@link StreamConfig} keeps its public key
 * constants (compile-time constants callers may switch on; the entries refer to them), builder methods and
 * getters, since code depends on them, but each only hands over to its entry; {@code fromProperties},
 * {@code keys()}, the defaults, the range checks, the "given twice" refusal, {@code toString} and the
 * documentation test all walk this table. The order of the entries is the order of {@link StreamConfig#keys()}
 * and of the documentation's table.
 *
 * <p>What one entry cannot say stays in {@link StreamConfig.Builder#build()}: checks of one setting against
 * another, and the two vectored sizes derived from the network model when not given (their entries have no
 * default).
 */
final class SettingsTable {
    // Filled by add() as the entries below are initialized, in the order they are written.
    private static final Map<String, Setting<?>> BY_KEY = new LinkedHashMap<>();

    static final Setting<Long> MIN_REQUEST_SIZE = add(Setting.size(StreamConfig.MIN_REQUEST_SIZE, "64KiB",
            atLeast(1),
            "No GET is smaller, unless it reaches the object's end, fills the whole gap between two cached "
                    + "ranges, or is a read's own in a stream that adapted its minimum down."));
    static final Setting<Long> MAX_REQUEST_SIZE = add(Setting.size(StreamConfig.MAX_REQUEST_SIZE, "8MiB",
            requestSize(2),
            "No GET is larger."));
    static final Setting<Long> SMALL_OBJECT_SIZE = add(Setting.size(StreamConfig.SMALL_OBJECT_SIZE, "8MiB",
            requestSize(0),
            "An object of at most this many bytes is fetched whole on its first read."));
    static final Setting<Long> SMALL_OBJECT_PART_SIZE = add(Setting.size(StreamConfig.SMALL_OBJECT_PART_SIZE,
            "512KiB", atLeast(1),
            "A small object read whole comes in parallel parts of at least this size, as many as the factory's "
                    + "idle connections allow."));
    static final Setting<Integer> SEQUENTIAL_READS = add(Setting.count(StreamConfig.SEQUENTIAL_READS, "2",
            atLeast(1),
            "How many streaming reads in a row, each starting where the previous one ended, make a stream "
                    + "sequential."));
    static final Setting<Long> PREFETCH_INITIAL_SIZE = add(Setting.size(StreamConfig.PREFETCH_INITIAL_SIZE,
            "4MiB", atLeast(1),
            "The prefetch window a stream gets when it becomes sequential."));
    static final Setting<Long> PREFETCH_MAX_SIZE = add(Setting.size(StreamConfig.PREFETCH_MAX_SIZE, "64MiB",
            atLeast(0),
            "The largest prefetch window a sequential stream grows to."));
    static final Setting<Long> CACHE_MAX_MEMORY = add(Setting.memory(StreamConfig.CACHE_MAX_MEMORY, "10%",
            atLeast(1),
            "Bytes the factory's block cache may hold, requests in flight included."));
    static final Setting<Duration> METADATA_TTL = add(Setting.duration(StreamConfig.METADATA_TTL, "60s",
            notNegative(),
            "How long a learned length and ETag are trusted when the same object is opened again."));
    static final Setting<Integer> METADATA_MAX_ENTRIES = add(Setting.count(StreamConfig.METADATA_MAX_ENTRIES,
            "10000", atLeast(0),
            "How many objects' lengths and ETags the factory remembers."));
    static final Setting<Integer> FETCH_MAX_CONCURRENCY = add(Setting.count(StreamConfig.FETCH_MAX_CONCURRENCY,
            "16", between(1, 1024),
            "GETs in flight at once across all the factory's streams."));
    static final Setting<Integer> RETRY_MAX_ATTEMPTS = add(Setting.count(StreamConfig.RETRY_MAX_ATTEMPTS, "8",
            between(1, 100),
            "How many times one GET or HEAD is sent at most, its first attempt included; 1 turns retries off."));
    static final Setting<Duration> RETRY_BASE_DELAY = add(Setting.duration(StreamConfig.RETRY_BASE_DELAY, "50ms",
            notNegative(),
            "The most a first retry waits; each further retry may wait up to twice as long as the one before."));
    static final Setting<Duration> RETRY_MAX_DELAY = add(Setting.duration(StreamConfig.RETRY_MAX_DELAY, "2s",
            notNegative(),
            "The most any retry waits."));
    static final Setting<Duration> RETRY_DEADLINE = add(Setting.duration(StreamConfig.RETRY_DEADLINE, "30s",
            notNegative(),
            "No retry of a request starts later than this after its first attempt."));
    static final Setting<Duration> RETRY_FIRST_BYTE_TIMEOUT = add(Setting.duration(
            StreamConfig.RETRY_FIRST_BYTE_TIMEOUT, "10s", notNegative(),
            "How long one attempt waits for its answer to begin before it is given up and retried; 0s waits "
                    + "without limit."));
    static final Setting<Duration> RETRY_BETWEEN_BYTES_TIMEOUT = add(Setting.duration(
            StreamConfig.RETRY_BETWEEN_BYTES_TIMEOUT, "10s", notNegative(),
            "How long one attempt may go without receiving a body byte before it is cut and resumed; 0s waits "
                    + "without limit."));
    static final Setting<Duration> READ_DEADLINE = add(Setting.duration(StreamConfig.READ_DEADLINE, "2m",
            notNegative(),
            "The longest one read call waits for its bytes, queueing, retries and backoff included; 0s waits "
                    + "without limit."));
    static final Setting<Boolean> THROTTLE_ENABLED = add(Setting.flag(StreamConfig.THROTTLE_ENABLED, "true",
            "Whether a governor per bucket limits the requests in flight, lowering the limit when S3 answers 503."));
    static final Setting<Integer> THROTTLE_MIN_CONCURRENCY = add(Setting.count(
            StreamConfig.THROTTLE_MIN_CONCURRENCY, "2", between(1, 4096),
            "The lowest limit the governor of a bucket goes down to."));
    static final Setting<Integer> THROTTLE_MAX_CONCURRENCY = add(Setting.count(
            StreamConfig.THROTTLE_MAX_CONCURRENCY, "64", between(1, 4096),
            "The highest limit the governor of a bucket goes up to."));
    static final Setting<Integer> THROTTLE_INCREASE_STEP = add(Setting.count(StreamConfig.THROTTLE_INCREASE_STEP,
            "1", between(1, 4096),
            "How much the limit grows after a round of requests without a 503 (one round: as many answers as "
                    + "the limit)."));
    static final Setting<Double> THROTTLE_DECREASE_FACTOR = add(Setting.fraction(
            StreamConfig.THROTTLE_DECREASE_FACTOR, "0.5", Checks.fractionBetween(0, 1, false),
            "What the limit is multiplied by when S3 answers 503, at most once a round."));
    static final Setting<Boolean> THROTTLE_NOISE_TEST = add(Setting.flag(StreamConfig.THROTTLE_NOISE_TEST, "true",
            "Whether each decrease tests that the 503s track the load, and 503s that keep coming at a lower load are "
                    + "left to retries instead of lowering the limit."));
    static final Setting<Boolean> HEDGE_ENABLED = add(Setting.flag(StreamConfig.HEDGE_ENABLED, "true",
            "Whether a GET whose answer is slow to begin is sent a second time, the first answer winning."));
    static final Setting<Double> HEDGE_PERCENTILE = add(Setting.fraction(StreamConfig.HEDGE_PERCENTILE, "0.95",
            Checks.fractionBetween(0.5, 0.999, true),
            "A GET is sent again when its first byte is later than this percentile of the recent first-byte "
                    + "latencies of GETs of its size."));
    static final Setting<Duration> HEDGE_MIN_DELAY = add(Setting.duration(StreamConfig.HEDGE_MIN_DELAY, "30ms",
            notNegative(),
            "No GET is sent again sooner than this after it was sent."));
    static final Setting<Double> HEDGE_MAX_FRACTION = add(Setting.fraction(StreamConfig.HEDGE_MAX_FRACTION, "0.05",
            Checks.fractionBetween(0, 0.5, true),
            "Second sends are at most this fraction of the GETs sent."));
    // S3 answers at most 1,000 keys a page; asking for fewer only adds calls.
    static final Setting<Integer> LIST_PAGE_SIZE = add(Setting.count(StreamConfig.LIST_PAGE_SIZE, "1000",
            between(1, 1000),
            "How many keys a listing asks for in one ListObjectsV2 request (S3 answers at most 1,000)."));
    static final Setting<Integer> LIST_CURSORS = add(Setting.count(StreamConfig.LIST_CURSORS, "16",
            between(1, 4096),
            "The most cursors one listing is split into, each over its own common prefix, skipping with "
                    + "StartAfter."));
    static final Setting<Integer> LIST_PARALLELISM = add(Setting.count(StreamConfig.LIST_PARALLELISM, "8",
            between(1, 4096),
            "The most ListObjectsV2 requests one listing has in flight (within fetch.max-concurrency and the "
                    + "throttle governors)."));
    // S3 in-region: the first byte of a GET arrives after about 20 to 100 ms.
    static final Setting<Duration> FIRST_BYTE_LATENCY = add(Setting.duration(StreamConfig.FIRST_BYTE_LATENCY,
            "30ms", notNegative(),
            "The cost model's price of one request: how long a GET waits for its first byte."));
    // S3: one GET stream delivers about 85 to 90 MB/s; 85 MiB/s is 89.1 MB/s.
    static final Setting<Long> CONNECTION_BANDWIDTH = add(Setting.rate(StreamConfig.CONNECTION_BANDWIDTH,
            "85MB/s", atLeast(1),
            "The cost model's price per byte: what one GET stream delivers once it flows."));
    static final Setting<Long> VECTORED_MIN_SEEK = add(Setting.derivedSize(StreamConfig.VECTORED_MIN_SEEK,
            requestSize(0),
            "A vectored read fetches a gap of at most this many bytes between two of its ranges in the same GET "
                    + "rather than send another one."));
    static final Setting<Long> VECTORED_MAX_MERGED_SIZE = add(Setting.derivedSize(
            StreamConfig.VECTORED_MAX_MERGED_SIZE, requestSize(1),
            "No request merged from several ranges spans more."));
    static final Setting<Double> VECTORED_DISCARD_TOLERANCE = add(Setting.fraction(
            StreamConfig.VECTORED_DISCARD_TOLERANCE, "0.25", finiteFraction(),
            "When the gap bytes a merged request fetched only to save GETs exceed this fraction of the bytes "
                    + "asked for, they are dropped as soon as they are read instead of cached."));
    static final Setting<Map<String, List<String>>> FORMAT_EXTENSIONS = add(Setting.of(
            StreamConfig.FORMAT_EXTENSIONS, "parquet:parquet,parq;orc:orc;text:csv,tsv,json,jsonl,ndjson,txt,log",
            (key, value, heap) -> ConfigValues.parseFormatExtensions(key, value),
            ConfigValues::checkedFormatExtensions,
            "Which format policy reads a key, by the extension at the key's very end."));
    static final Setting<List<String>> FORMAT_COMPRESSED_EXTENSIONS = add(Setting.of(
            StreamConfig.FORMAT_COMPRESSED_EXTENSIONS, "gz,bz2,zst,lz4,snappy,deflate,xz,br",
            (key, value, heap) -> ConfigValues.parseExtensions(key, value),
            ConfigValues::checkedExtensions,
            "A key ending in a known extension followed by one of these is read by the text policy, front to "
                    + "back."));
    // ORC's footer and stripe statistics: tens of KiB typically, a few hundred for files of many stripes.
    static final Setting<Long> ORC_TAIL_SIZE = add(Setting.size(StreamConfig.ORC_TAIL_SIZE, "256KiB",
            requestSize(0),
            "Bytes of an ORC file's tail fetched when its stream opens."));
    static final Setting<Long> PARQUET_FOOTER_PRECACHE_SIZE = add(Setting.size(
            StreamConfig.PARQUET_FOOTER_PRECACHE_SIZE, "32KiB", requestSize(0),
            "Bytes of a Parquet file's tail fetched when its stream opens, for files up to "
                    + "parquet.large-file-size."));
    static final Setting<Long> PARQUET_LARGE_FOOTER_PRECACHE_SIZE = add(Setting.size(
            StreamConfig.PARQUET_LARGE_FOOTER_PRECACHE_SIZE, "1MiB", requestSize(0),
            "Bytes of a Parquet file's tail fetched when its stream opens, for files larger than "
                    + "parquet.large-file-size."));
    // About one round trip's worth of bytes at S3's per-connection rate (30 ms x 85 MiB/s, about 2.5 MiB), rounded
    // up: a file this small costs little more whole than its footer alone, and saves the round trip that reading
    // the footer first costs.
    static final Setting<Long> PARQUET_WHOLE_FILE_SIZE = add(Setting.size(StreamConfig.PARQUET_WHOLE_FILE_SIZE,
            "3MiB", requestSize(0),
            "A Parquet file of at most this many bytes (and of at most read.small-object-size) is read whole on "
                    + "its first read; a larger one is read footer first, then only the column chunks its reader "
                    + "reads or is predicted to read."));
    static final Setting<Long> PARQUET_LARGE_FILE_SIZE = add(Setting.size(StreamConfig.PARQUET_LARGE_FILE_SIZE,
            "1GiB", atLeast(0),
            "Above this length a Parquet file's open fetches parquet.large-footer-precache-size of its tail "
                    + "instead of parquet.footer-precache-size."));

    private SettingsTable() {}

    /** Every setting, in documentation order. */
    static Collection<Setting<?>> all() {
        return Collections.unmodifiableCollection(BY_KEY.values());
    }

    /** The keys, in documentation order. */
    static Set<String> keys() {
        return Collections.unmodifiableSet(BY_KEY.keySet());
    }

    static Optional<Setting<?>> byKey(String key) {
        return Optional.ofNullable(BY_KEY.get(key));
    }

    private static <T> Setting<T> add(Setting<T> setting) {
        if (BY_KEY.putIfAbsent(setting.key(), setting) != null) {
            throw new IllegalStateException("Two settings have the key " + setting.key());
        }
        return setting;
    }
}
