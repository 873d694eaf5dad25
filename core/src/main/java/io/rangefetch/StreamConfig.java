package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.config.ConfigValues;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The settings of a {@link StreamFactory}: immutable, built with {@link #builder()} or read from properties with
 * {@link #fromProperties(Map, String)}. Every key, default and range is listed in docs/CONFIGURATION.md.
 *
 * <p>Like Caffeine's builder, the builder refuses a setting given twice (one of the two would be silently lost)
 * and {@link Builder#build()} refuses settings that contradict each other, naming the values.
 */
public final class StreamConfig {
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
    public static final String PARQUET_LARGE_FILE_SIZE = "parquet.large-file-size";

    static final long DEFAULT_MIN_REQUEST_SIZE = 64L << 10;
    static final long DEFAULT_MAX_REQUEST_SIZE = 8L << 20;
    static final long DEFAULT_SMALL_OBJECT_SIZE = 8L << 20;
    static final long DEFAULT_SMALL_OBJECT_PART_SIZE = 512L << 10;
    static final int DEFAULT_SEQUENTIAL_READS = 2;
    static final long DEFAULT_PREFETCH_INITIAL_SIZE = 4L << 20;
    static final long DEFAULT_PREFETCH_MAX_SIZE = 64L << 20;
    static final String DEFAULT_CACHE_MAX_MEMORY = "10%";
    static final Duration DEFAULT_METADATA_TTL = Duration.ofSeconds(60);
    static final int DEFAULT_METADATA_MAX_ENTRIES = 10_000;
    static final int DEFAULT_FETCH_MAX_CONCURRENCY = 16;
    /** S3 in-region: the first byte of a GET arrives after about 20 to 100 ms. */
    static final Duration DEFAULT_FIRST_BYTE_LATENCY = Duration.ofMillis(30);
    /** S3: one GET stream delivers about 85 to 90 MB/s; 85 MiB/s is 89.1 MB/s. */
    static final long DEFAULT_CONNECTION_BANDWIDTH = 85L << 20;
    static final double DEFAULT_VECTORED_DISCARD_TOLERANCE = 0.25;
    /**
     * The derived {@code vectored.max-merged-size} is what one connection moves in this many first-byte
     * latencies: merging saves one latency, which is then at most a fifth of the merged request's time.
     */
    static final int ROUND_TRIPS_PER_MERGED_REQUEST = 4;

    static final String DEFAULT_FORMAT_EXTENSIONS =
            "parquet:parquet,parq;orc:orc;text:csv,tsv,json,jsonl,ndjson,txt,log";
    static final String DEFAULT_FORMAT_COMPRESSED_EXTENSIONS = "gz,bz2,zst,lz4,snappy,deflate,xz,br";
    /** ORC's footer and stripe statistics: tens of KiB typically, a few hundred for files of many stripes. */
    static final long DEFAULT_ORC_TAIL_SIZE = 256L << 10;
    static final long DEFAULT_PARQUET_FOOTER_PRECACHE_SIZE = 32L << 10;
    static final long DEFAULT_PARQUET_LARGE_FOOTER_PRECACHE_SIZE = 1L << 20;
    static final long DEFAULT_PARQUET_LARGE_FILE_SIZE = 1L << 30;

    /** Largest single request: one request lands in one Java array. */
    static final long MAX_ARRAY_REQUEST = 1L << 30;

    private static final Map<String, BiConsumer<Builder, String>> PARSERS = parsers();

    private final long minRequestSize;
    private final long maxRequestSize;
    private final long smallObjectSize;
    private final long smallObjectPartSize;
    private final int sequentialReads;
    private final long prefetchInitialSize;
    private final long prefetchMaxSize;
    private final long cacheMaxMemory;
    private final Duration metadataTtl;
    private final int metadataMaxEntries;
    private final int fetchMaxConcurrency;
    private final Duration firstByteLatency;
    private final long connectionBandwidth;
    private final long vectoredMinSeek;
    private final long vectoredMaxMergedSize;
    private final double vectoredDiscardTolerance;
    private final Map<String, List<String>> formatExtensions;
    private final List<String> formatCompressedExtensions;
    private final long orcTailSize;
    private final long parquetFooterPrecacheSize;
    private final long parquetLargeFooterPrecacheSize;
    private final long parquetLargeFileSize;

    private StreamConfig(Builder builder, long vectoredMinSeek, long vectoredMaxMergedSize) {
        this.minRequestSize = builder.minRequestSize;
        this.maxRequestSize = builder.maxRequestSize;
        this.smallObjectSize = builder.smallObjectSize;
        this.smallObjectPartSize = builder.smallObjectPartSize;
        this.sequentialReads = builder.sequentialReads;
        this.prefetchInitialSize = builder.prefetchInitialSize;
        this.prefetchMaxSize = builder.prefetchMaxSize;
        this.cacheMaxMemory = builder.cacheMaxMemory;
        this.metadataTtl = builder.metadataTtl;
        this.metadataMaxEntries = builder.metadataMaxEntries;
        this.fetchMaxConcurrency = builder.fetchMaxConcurrency;
        this.firstByteLatency = builder.firstByteLatency;
        this.connectionBandwidth = builder.connectionBandwidth;
        this.vectoredMinSeek = vectoredMinSeek;
        this.vectoredMaxMergedSize = vectoredMaxMergedSize;
        this.vectoredDiscardTolerance = builder.vectoredDiscardTolerance;
        this.formatExtensions = builder.formatExtensions;
        this.formatCompressedExtensions = builder.formatCompressedExtensions;
        this.orcTailSize = builder.orcTailSize;
        this.parquetFooterPrecacheSize = builder.parquetFooterPrecacheSize;
        this.parquetLargeFooterPrecacheSize = builder.parquetLargeFooterPrecacheSize;
        this.parquetLargeFileSize = builder.parquetLargeFileSize;
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
            String name = key.substring(prefix.length());
            BiConsumer<Builder, String> parser = PARSERS.get(name);
            if (parser == null) {
                throw new IllegalArgumentException("Unknown setting '" + key + "'; settings under '" + prefix
                        + "' are: " + String.join(", ", PARSERS.keySet()));
            }
            String value = requireNonNull(entry.getValue(), () -> "value of " + key + " is null");
            try {
                parser.accept(builder, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Invalid setting " + key + "=" + value + ": " + e.getMessage(), e);
            }
        }
        return builder.build();
    }

    /** The keys {@link #fromProperties} understands, without prefix, in documentation order. */
    public static Set<String> keys() {
        return Collections.unmodifiableSet(PARSERS.keySet());
    }

    private static Map<String, BiConsumer<Builder, String>> parsers() {
        Map<String, BiConsumer<Builder, String>> parsers = new LinkedHashMap<>();
        parsers.put(MIN_REQUEST_SIZE, (b, v) -> b.minRequestSize(ConfigValues.parseSize(MIN_REQUEST_SIZE, v)));
        parsers.put(MAX_REQUEST_SIZE, (b, v) -> b.maxRequestSize(ConfigValues.parseSize(MAX_REQUEST_SIZE, v)));
        parsers.put(SMALL_OBJECT_SIZE, (b, v) -> b.smallObjectSize(ConfigValues.parseSize(SMALL_OBJECT_SIZE, v)));
        parsers.put(SMALL_OBJECT_PART_SIZE,
                (b, v) -> b.smallObjectPartSize(ConfigValues.parseSize(SMALL_OBJECT_PART_SIZE, v)));
        parsers.put(SEQUENTIAL_READS, (b, v) -> b.sequentialReads(ConfigValues.parseInt(SEQUENTIAL_READS, v)));
        parsers.put(PREFETCH_INITIAL_SIZE,
                (b, v) -> b.prefetchInitialSize(ConfigValues.parseSize(PREFETCH_INITIAL_SIZE, v)));
        parsers.put(PREFETCH_MAX_SIZE, (b, v) -> b.prefetchMaxSize(ConfigValues.parseSize(PREFETCH_MAX_SIZE, v)));
        parsers.put(CACHE_MAX_MEMORY,
                (b, v) -> b.cacheMaxMemory(ConfigValues.parseMemory(CACHE_MAX_MEMORY, v, b.maxHeapBytes)));
        parsers.put(METADATA_TTL, (b, v) -> b.metadataTtl(ConfigValues.parseDuration(METADATA_TTL, v)));
        parsers.put(METADATA_MAX_ENTRIES,
                (b, v) -> b.metadataMaxEntries(ConfigValues.parseInt(METADATA_MAX_ENTRIES, v)));
        parsers.put(FETCH_MAX_CONCURRENCY,
                (b, v) -> b.fetchMaxConcurrency(ConfigValues.parseInt(FETCH_MAX_CONCURRENCY, v)));
        parsers.put(FIRST_BYTE_LATENCY,
                (b, v) -> b.firstByteLatency(ConfigValues.parseDuration(FIRST_BYTE_LATENCY, v)));
        parsers.put(CONNECTION_BANDWIDTH,
                (b, v) -> b.connectionBandwidth(ConfigValues.parseRate(CONNECTION_BANDWIDTH, v)));
        parsers.put(VECTORED_MIN_SEEK, (b, v) -> b.vectoredMinSeek(ConfigValues.parseSize(VECTORED_MIN_SEEK, v)));
        parsers.put(VECTORED_MAX_MERGED_SIZE,
                (b, v) -> b.vectoredMaxMergedSize(ConfigValues.parseSize(VECTORED_MAX_MERGED_SIZE, v)));
        parsers.put(VECTORED_DISCARD_TOLERANCE,
                (b, v) -> b.vectoredDiscardTolerance(ConfigValues.parseFraction(VECTORED_DISCARD_TOLERANCE, v)));
        parsers.put(FORMAT_EXTENSIONS,
                (b, v) -> b.formatExtensions(ConfigValues.parseFormatExtensions(FORMAT_EXTENSIONS, v)));
        parsers.put(FORMAT_COMPRESSED_EXTENSIONS, (b, v) -> b.formatCompressedExtensions(
                ConfigValues.parseExtensions(FORMAT_COMPRESSED_EXTENSIONS, v)));
        parsers.put(ORC_TAIL_SIZE, (b, v) -> b.orcTailSize(ConfigValues.parseSize(ORC_TAIL_SIZE, v)));
        parsers.put(PARQUET_FOOTER_PRECACHE_SIZE, (b, v) -> b.parquetFooterPrecacheSize(
                ConfigValues.parseSize(PARQUET_FOOTER_PRECACHE_SIZE, v)));
        parsers.put(PARQUET_LARGE_FOOTER_PRECACHE_SIZE, (b, v) -> b.parquetLargeFooterPrecacheSize(
                ConfigValues.parseSize(PARQUET_LARGE_FOOTER_PRECACHE_SIZE, v)));
        parsers.put(PARQUET_LARGE_FILE_SIZE,
                (b, v) -> b.parquetLargeFileSize(ConfigValues.parseSize(PARQUET_LARGE_FILE_SIZE, v)));
        return parsers;
    }

    /** No request is smaller than this unless it reaches the object's end or fills a gap between cached bytes. */
    public long minRequestSize() {
        return minRequestSize;
    }

    /** No request is larger than this; larger reads are split into parts fetched in parallel. */
    public long maxRequestSize() {
        return maxRequestSize;
    }

    /** Objects of at most this many bytes are fetched whole on the first read; 0 turns this off. */
    public long smallObjectSize() {
        return smallObjectSize;
    }

    /** A small object read whole comes in parallel parts of at least this many bytes. */
    public long smallObjectPartSize() {
        return smallObjectPartSize;
    }

    /** How many reads in a row, each starting where the last ended, make a stream sequential. */
    public int sequentialReads() {
        return sequentialReads;
    }

    /** The first prefetch window once a stream is sequential; it doubles with each prefetch. */
    public long prefetchInitialSize() {
        return prefetchInitialSize;
    }

    /** The largest prefetch window a sequential stream grows to. */
    public long prefetchMaxSize() {
        return prefetchMaxSize;
    }

    /** Bytes the factory's block cache may hold, requests in flight included. */
    public long cacheMaxMemory() {
        return cacheMaxMemory;
    }

    /** How long a learned length and ETag are trusted for new streams. */
    public Duration metadataTtl() {
        return metadataTtl;
    }

    public int metadataMaxEntries() {
        return metadataMaxEntries;
    }

    /** Requests in flight at once, across all the factory's streams. */
    public int fetchMaxConcurrency() {
        return fetchMaxConcurrency;
    }

    /** How long the first byte of a GET takes to arrive: the cost model's fixed price of one request. */
    public Duration firstByteLatency() {
        return firstByteLatency;
    }

    /** Bytes per second one GET stream delivers once its first byte arrived: the model's price per byte. */
    public long connectionBandwidth() {
        return connectionBandwidth;
    }

    /** A vectored read fetches a gap of at most this many bytes between two ranges rather than send another GET. */
    public long vectoredMinSeek() {
        return vectoredMinSeek;
    }

    /** No request merged from several ranges of a vectored read spans more than this. */
    public long vectoredMaxMergedSize() {
        return vectoredMaxMergedSize;
    }

    /**
     * Gap bytes a merged request fetched only to save a GET are dropped, not cached, when they exceed this
     * fraction of the bytes the caller asked for.
     */
    public double vectoredDiscardTolerance() {
        return vectoredDiscardTolerance;
    }

    /**
     * Which format policy reads a key with which extension, by policy name: extensions are lower case, without
     * the dot, matched at the key's end regardless of case.
     */
    public Map<String, List<String>> formatExtensions() {
        return formatExtensions;
    }

    /**
     * Compression suffixes after a known extension ({@code data.csv.gz}): such an object can only be read front
     * to back through a decompressor, so the {@code text} policy reads it whatever the inner format.
     */
    public List<String> formatCompressedExtensions() {
        return formatCompressedExtensions;
    }

    /** Bytes of an ORC file's tail (postscript, footer, metadata) fetched when its stream opens. */
    public long orcTailSize() {
        return orcTailSize;
    }

    /** Bytes of a Parquet file's tail fetched when its stream opens, for files up to {@link #parquetLargeFileSize()}. */
    public long parquetFooterPrecacheSize() {
        return parquetFooterPrecacheSize;
    }

    /** Bytes of a Parquet file's tail fetched when its stream opens, for larger files (their footers are larger). */
    public long parquetLargeFooterPrecacheSize() {
        return parquetLargeFooterPrecacheSize;
    }

    /** Above this length a Parquet file's open fetches {@link #parquetLargeFooterPrecacheSize()} of its tail. */
    public long parquetLargeFileSize() {
        return parquetLargeFileSize;
    }

    @Override
    public String toString() {
        return "StreamConfig{" + MIN_REQUEST_SIZE + "=" + minRequestSize
                + ", " + MAX_REQUEST_SIZE + "=" + maxRequestSize
                + ", " + SMALL_OBJECT_SIZE + "=" + smallObjectSize
                + ", " + SMALL_OBJECT_PART_SIZE + "=" + smallObjectPartSize
                + ", " + SEQUENTIAL_READS + "=" + sequentialReads
                + ", " + PREFETCH_INITIAL_SIZE + "=" + prefetchInitialSize
                + ", " + PREFETCH_MAX_SIZE + "=" + prefetchMaxSize
                + ", " + CACHE_MAX_MEMORY + "=" + cacheMaxMemory
                + ", " + METADATA_TTL + "=" + metadataTtl
                + ", " + METADATA_MAX_ENTRIES + "=" + metadataMaxEntries
                + ", " + FETCH_MAX_CONCURRENCY + "=" + fetchMaxConcurrency
                + ", " + FIRST_BYTE_LATENCY + "=" + firstByteLatency
                + ", " + CONNECTION_BANDWIDTH + "=" + connectionBandwidth
                + ", " + VECTORED_MIN_SEEK + "=" + vectoredMinSeek
                + ", " + VECTORED_MAX_MERGED_SIZE + "=" + vectoredMaxMergedSize
                + ", " + VECTORED_DISCARD_TOLERANCE + "=" + vectoredDiscardTolerance
                + ", " + FORMAT_EXTENSIONS + "=" + formatExtensions
                + ", " + FORMAT_COMPRESSED_EXTENSIONS + "=" + formatCompressedExtensions
                + ", " + ORC_TAIL_SIZE + "=" + orcTailSize
                + ", " + PARQUET_FOOTER_PRECACHE_SIZE + "=" + parquetFooterPrecacheSize
                + ", " + PARQUET_LARGE_FOOTER_PRECACHE_SIZE + "=" + parquetLargeFooterPrecacheSize
                + ", " + PARQUET_LARGE_FILE_SIZE + "=" + parquetLargeFileSize + "}";
    }

    /** Not thread-safe. Each setting may be given once. */
    public static final class Builder {
        private final long maxHeapBytes;
        private final Set<String> given = new HashSet<>();
        private long minRequestSize = DEFAULT_MIN_REQUEST_SIZE;
        private long maxRequestSize = DEFAULT_MAX_REQUEST_SIZE;
        private long smallObjectSize = DEFAULT_SMALL_OBJECT_SIZE;
        private long smallObjectPartSize = DEFAULT_SMALL_OBJECT_PART_SIZE;
        private int sequentialReads = DEFAULT_SEQUENTIAL_READS;
        private long prefetchInitialSize = DEFAULT_PREFETCH_INITIAL_SIZE;
        private long prefetchMaxSize = DEFAULT_PREFETCH_MAX_SIZE;
        private long cacheMaxMemory;
        private Duration metadataTtl = DEFAULT_METADATA_TTL;
        private int metadataMaxEntries = DEFAULT_METADATA_MAX_ENTRIES;
        private int fetchMaxConcurrency = DEFAULT_FETCH_MAX_CONCURRENCY;
        private Duration firstByteLatency = DEFAULT_FIRST_BYTE_LATENCY;
        private long connectionBandwidth = DEFAULT_CONNECTION_BANDWIDTH;
        // Derived from the network model in build() unless given.
        private long vectoredMinSeek;
        private long vectoredMaxMergedSize;
        private double vectoredDiscardTolerance = DEFAULT_VECTORED_DISCARD_TOLERANCE;
        private Map<String, List<String>> formatExtensions =
                ConfigValues.parseFormatExtensions(FORMAT_EXTENSIONS, DEFAULT_FORMAT_EXTENSIONS);
        private List<String> formatCompressedExtensions =
                ConfigValues.parseExtensions(FORMAT_COMPRESSED_EXTENSIONS, DEFAULT_FORMAT_COMPRESSED_EXTENSIONS);
        private long orcTailSize = DEFAULT_ORC_TAIL_SIZE;
        private long parquetFooterPrecacheSize = DEFAULT_PARQUET_FOOTER_PRECACHE_SIZE;
        private long parquetLargeFooterPrecacheSize = DEFAULT_PARQUET_LARGE_FOOTER_PRECACHE_SIZE;
        private long parquetLargeFileSize = DEFAULT_PARQUET_LARGE_FILE_SIZE;

        private Builder(long maxHeapBytes) {
            this.maxHeapBytes = maxHeapBytes;
            this.cacheMaxMemory = ConfigValues.parseMemory(CACHE_MAX_MEMORY, DEFAULT_CACHE_MAX_MEMORY, maxHeapBytes);
        }

        public Builder minRequestSize(long bytes) {
            once(MIN_REQUEST_SIZE);
            this.minRequestSize = atLeast(MIN_REQUEST_SIZE, bytes, 1);
            return this;
        }

        public Builder maxRequestSize(long bytes) {
            once(MAX_REQUEST_SIZE);
            this.maxRequestSize = atLeast(MAX_REQUEST_SIZE, bytes, 2);
            return this;
        }

        public Builder smallObjectSize(long bytes) {
            once(SMALL_OBJECT_SIZE);
            this.smallObjectSize = atLeast(SMALL_OBJECT_SIZE, bytes, 0);
            return this;
        }

        public Builder smallObjectPartSize(long bytes) {
            once(SMALL_OBJECT_PART_SIZE);
            this.smallObjectPartSize = atLeast(SMALL_OBJECT_PART_SIZE, bytes, 1);
            return this;
        }

        public Builder sequentialReads(int reads) {
            once(SEQUENTIAL_READS);
            this.sequentialReads = (int) atLeast(SEQUENTIAL_READS, reads, 1);
            return this;
        }

        public Builder prefetchInitialSize(long bytes) {
            once(PREFETCH_INITIAL_SIZE);
            this.prefetchInitialSize = atLeast(PREFETCH_INITIAL_SIZE, bytes, 1);
            return this;
        }

        public Builder prefetchMaxSize(long bytes) {
            once(PREFETCH_MAX_SIZE);
            this.prefetchMaxSize = atLeast(PREFETCH_MAX_SIZE, bytes, 0);
            return this;
        }

        public Builder cacheMaxMemory(long bytes) {
            once(CACHE_MAX_MEMORY);
            this.cacheMaxMemory = atLeast(CACHE_MAX_MEMORY, bytes, 1);
            return this;
        }

        public Builder metadataTtl(Duration ttl) {
            once(METADATA_TTL);
            this.metadataTtl = notNegative(METADATA_TTL, requireNonNull(ttl, "ttl is null"));
            return this;
        }

        public Builder metadataMaxEntries(int entries) {
            once(METADATA_MAX_ENTRIES);
            this.metadataMaxEntries = (int) atLeast(METADATA_MAX_ENTRIES, entries, 0);
            return this;
        }

        public Builder fetchMaxConcurrency(int requests) {
            once(FETCH_MAX_CONCURRENCY);
            if (requests < 1 || requests > 1024) {
                throw new IllegalArgumentException(FETCH_MAX_CONCURRENCY + " must be between 1 and 1024, got " + requests);
            }
            this.fetchMaxConcurrency = requests;
            return this;
        }

        /** The first-byte latency of a GET under the cost model; the default is fitted to S3 in-region. */
        public Builder firstByteLatency(Duration latency) {
            once(FIRST_BYTE_LATENCY);
            this.firstByteLatency = notNegative(FIRST_BYTE_LATENCY, requireNonNull(latency, "latency is null"));
            return this;
        }

        /** The bytes per second one GET stream delivers under the cost model; the default is fitted to S3. */
        public Builder connectionBandwidth(long bytesPerSecond) {
            once(CONNECTION_BANDWIDTH);
            this.connectionBandwidth = atLeast(CONNECTION_BANDWIDTH, bytesPerSecond, 1);
            return this;
        }

        /** Overrides the gap derived from the network model (latency × bandwidth). */
        public Builder vectoredMinSeek(long bytes) {
            once(VECTORED_MIN_SEEK);
            this.vectoredMinSeek = requestSize(VECTORED_MIN_SEEK, bytes, 0);
            return this;
        }

        /** Overrides the merged-request cap derived from the network model. */
        public Builder vectoredMaxMergedSize(long bytes) {
            once(VECTORED_MAX_MERGED_SIZE);
            this.vectoredMaxMergedSize = requestSize(VECTORED_MAX_MERGED_SIZE, bytes, 1);
            return this;
        }

        public Builder vectoredDiscardTolerance(double fraction) {
            once(VECTORED_DISCARD_TOLERANCE);
            if (!(fraction >= 0) || Double.isInfinite(fraction)) {
                throw new IllegalArgumentException(VECTORED_DISCARD_TOLERANCE
                        + " must be a finite fraction of at least 0, got " + fraction);
            }
            this.vectoredDiscardTolerance = fraction;
            return this;
        }

        /**
         * Which policy reads which key extensions, by policy name (replaces the default mapping); see
         * {@link StreamConfig#formatExtensions()}. An extension may belong to one policy only.
         */
        public Builder formatExtensions(Map<String, List<String>> extensionsByPolicy) {
            once(FORMAT_EXTENSIONS);
            this.formatExtensions = ConfigValues.checkedFormatExtensions(FORMAT_EXTENSIONS,
                    requireNonNull(extensionsByPolicy, "extensionsByPolicy is null"));
            return this;
        }

        public Builder formatCompressedExtensions(List<String> extensions) {
            once(FORMAT_COMPRESSED_EXTENSIONS);
            this.formatCompressedExtensions = ConfigValues.checkedExtensions(FORMAT_COMPRESSED_EXTENSIONS,
                    requireNonNull(extensions, "extensions is null"));
            return this;
        }

        public Builder orcTailSize(long bytes) {
            once(ORC_TAIL_SIZE);
            this.orcTailSize = requestSize(ORC_TAIL_SIZE, bytes, 0);
            return this;
        }

        public Builder parquetFooterPrecacheSize(long bytes) {
            once(PARQUET_FOOTER_PRECACHE_SIZE);
            this.parquetFooterPrecacheSize = requestSize(PARQUET_FOOTER_PRECACHE_SIZE, bytes, 0);
            return this;
        }

        public Builder parquetLargeFooterPrecacheSize(long bytes) {
            once(PARQUET_LARGE_FOOTER_PRECACHE_SIZE);
            this.parquetLargeFooterPrecacheSize = requestSize(PARQUET_LARGE_FOOTER_PRECACHE_SIZE, bytes, 0);
            return this;
        }

        public Builder parquetLargeFileSize(long bytes) {
            once(PARQUET_LARGE_FILE_SIZE);
            this.parquetLargeFileSize = atLeast(PARQUET_LARGE_FILE_SIZE, bytes, 0);
            return this;
        }

        /** Checks the settings against each other and derives the vectored-read sizes not given. */
        public StreamConfig build() {
            if (maxRequestSize > MAX_ARRAY_REQUEST) {
                throw new IllegalArgumentException(MAX_REQUEST_SIZE + " must be at most 1GiB (one request fills one "
                        + "array), got " + maxRequestSize);
            }
            if (maxRequestSize < 2 * minRequestSize) {
                throw new IllegalArgumentException(MAX_REQUEST_SIZE + " (" + maxRequestSize + ") must be at least twice "
                        + MIN_REQUEST_SIZE + " (" + minRequestSize + ") so that split parts stay above the minimum");
            }
            atMostOneGiB(SMALL_OBJECT_SIZE, smallObjectSize);
            if (smallObjectPartSize < minRequestSize || smallObjectPartSize > maxRequestSize) {
                throw new IllegalArgumentException(SMALL_OBJECT_PART_SIZE + " (" + smallObjectPartSize
                        + ") must be between " + MIN_REQUEST_SIZE + " (" + minRequestSize + ") and "
                        + MAX_REQUEST_SIZE + " (" + maxRequestSize + ")");
            }
            if (prefetchInitialSize < minRequestSize) {
                throw new IllegalArgumentException(PREFETCH_INITIAL_SIZE + " (" + prefetchInitialSize + ") must be at least "
                        + MIN_REQUEST_SIZE + " (" + minRequestSize + ")");
            }
            if (prefetchMaxSize > 0 && prefetchMaxSize < prefetchInitialSize) {
                throw new IllegalArgumentException(PREFETCH_MAX_SIZE + " (" + prefetchMaxSize + ") must be 0 (no prefetch) "
                        + "or at least " + PREFETCH_INITIAL_SIZE + " (" + prefetchInitialSize + ")");
            }
            return new StreamConfig(this, resolveMinSeek(), resolveMaxMergedSize());
        }

        /**
         * Latency × bandwidth: the bytes a connection could have moved while a new GET waits for its first
         * byte, so reading through a gap that size costs no more time than skipping it with another request.
         * Yields to an explicit max-merged size, which it must not exceed.
         */
        private long resolveMinSeek() {
            if (given.contains(VECTORED_MIN_SEEK)) {
                return vectoredMinSeek;
            }
            long derived = bytesInRoundTrips(1);
            return given.contains(VECTORED_MAX_MERGED_SIZE) ? Math.min(derived, vectoredMaxMergedSize) : derived;
        }

        /**
         * What one connection moves in a few first-byte latencies, at least one maximal request (a smaller cap
         * would split what one GET could carry) and at least the min-seek gap (which must fit in a merged
         * request). Explicit values are only checked against each other.
         */
        private long resolveMaxMergedSize() {
            long minSeek = resolveMinSeek();
            if (given.contains(VECTORED_MAX_MERGED_SIZE)) {
                if (vectoredMaxMergedSize < minSeek) {
                    throw new IllegalArgumentException(VECTORED_MAX_MERGED_SIZE + " (" + vectoredMaxMergedSize
                            + ") must be at least " + VECTORED_MIN_SEEK + " (" + minSeek + "): a gap worth reading "
                            + "through must fit in a merged request");
                }
                return vectoredMaxMergedSize;
            }
            long derived = Math.max(bytesInRoundTrips(ROUND_TRIPS_PER_MERGED_REQUEST), minSeek);
            return Math.min(MAX_ARRAY_REQUEST, Math.max(maxRequestSize, derived));
        }

        /** Bytes one connection delivers in {@code roundTrips} first-byte latencies, at most 1 GiB. */
        private long bytesInRoundTrips(int roundTrips) {
            double seconds = firstByteLatency.getSeconds() + firstByteLatency.getNano() / 1e9;
            double bytes = Math.floor(roundTrips * seconds * connectionBandwidth);
            return (long) Math.min(MAX_ARRAY_REQUEST, bytes);
        }

        private void once(String key) {
            if (!given.add(key)) {
                throw new IllegalStateException(key + " was already set");
            }
        }

        /** A size of at least {@code minimum} bytes and at most 1 GiB (one request lands in one array). */
        private static long requestSize(String key, long value, long minimum) {
            return atMostOneGiB(key, atLeast(key, value, minimum));
        }

        private static long atMostOneGiB(String key, long value) {
            if (value > MAX_ARRAY_REQUEST) {
                throw new IllegalArgumentException(key + " must be at most 1GiB, got " + value);
            }
            return value;
        }

        private static Duration notNegative(String key, Duration value) {
            if (value.isNegative()) {
                throw new IllegalArgumentException(key + " must not be negative, got " + value);
            }
            return value;
        }

        private static long atLeast(String key, long value, long minimum) {
            if (value < minimum) {
                throw new IllegalArgumentException(key + " must be at least " + minimum + ", got " + value);
            }
            return value;
        }
    }
}
