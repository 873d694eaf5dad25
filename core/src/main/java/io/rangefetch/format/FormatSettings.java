package io.rangefetch.format;

/**
 * The factory's settings a format policy reads ({@link FormatStream#settings()}), each the value of the key
 * named in its comment (see docs/CONFIGURATION.md). The factory's configuration implements this interface: the
 * format package sits below the public API and cannot name its configuration class, and a policy needs only
 * these few values.
 *
 * <p>A setting belongs here once a policy reads it; add it together with that policy.
 */
public interface FormatSettings {

    /** {@code orc.tail-size}: bytes of an ORC file's tail to fetch as its stream opens; {@code 0} fetches none. */
    long orcTailSize();

    /** {@code parquet.footer-precache-size}: bytes of a Parquet file's tail to fetch as its stream opens. */
    long parquetFooterPrecacheSize();

    /**
     * {@code parquet.large-footer-precache-size}: the same for a file longer than {@link #parquetLargeFileSize()},
     * whose footer is larger.
     */
    long parquetLargeFooterPrecacheSize();

    /**
     * {@code parquet.whole-file-size}: the largest Parquet file read whole on its first read; a larger one is
     * read footer first, then the column chunks read or predicted.
     */
    long parquetWholeFileSize();

    /** {@code parquet.large-file-size}: the length above which a Parquet file's footer is taken to be large. */
    long parquetLargeFileSize();

    /**
     * {@code prefetch.max-size}: the most a stream reads ahead of its reader; a policy's own read-ahead stays
     * within it too.
     */
    long prefetchMaxSize();

    /**
     * {@code prefetch.initial-size}: the window a sequential stream starts with; a policy's own read-ahead starts
     * no larger, and grows as the reader uses it.
     */
    long prefetchInitialSize();

    /**
     * {@code cache.max-memory}: the bytes the factory's block cache holds for every stream at once, so a policy
     * can keep what it prefetches to a share of it.
     */
    long cacheMaxMemory();
}
