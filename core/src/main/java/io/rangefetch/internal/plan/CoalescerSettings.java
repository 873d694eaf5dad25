package io.rangefetch.internal.plan;

/**
 * The limits {@link RangeCoalescer} works within (see StreamConfig's {@code vectored.*} keys for what each means
 * and how the defaults follow from the network model).
 *
 * <p><b>Public because</b> {@code io.rangefetch.EngineSettings} makes it from the configuration.
 *
 * @param minSeek the largest gap between two ranges that is read through rather than skipped with another GET
 * @param maxMergedSize the largest span a request merged from several ranges may cover
 * @param maxRequestSize the largest single GET; larger requests are cut into even parts fetched in parallel
 * @param discardTolerance gap bytes above this fraction of a request's useful bytes are dropped, not cached
 * @param minPartSize the smallest part a merged request is cut into, at a gap, to be fetched in parallel: what
 *     one connection moves during one first-byte latency (a smaller part waits longer than it transfers)
 * @param maxParallelParts the most parts a merged request is cut into at gaps, and the most requests a plan
 *     grows to by splitting merged requests at their widest gaps: the fetch concurrency
 * @param minSplitGap the narrowest gap a merged request is split at to use idle connections: a narrower one is
 *     read through, since the request it would save is worth more than its bytes
 */
public record CoalescerSettings(
        long minSeek,
        long maxMergedSize,
        long maxRequestSize,
        double discardTolerance,
        long minPartSize,
        int maxParallelParts,
        long minSplitGap) {

    /** Settings that never cut a merged request at its gaps: only the maximum request size splits it. */
    public CoalescerSettings(long minSeek, long maxMergedSize, long maxRequestSize, double discardTolerance) {
        this(minSeek, maxMergedSize, maxRequestSize, discardTolerance, Long.MAX_VALUE, 1);
    }

    /** Settings that never split merged requests to use idle connections. */
    public CoalescerSettings(
            long minSeek,
            long maxMergedSize,
            long maxRequestSize,
            double discardTolerance,
            long minPartSize,
            int maxParallelParts) {
        this(minSeek, maxMergedSize, maxRequestSize, discardTolerance, minPartSize, maxParallelParts, Long.MAX_VALUE);
    }

    /** The same settings with another {@code maxParallelParts}. */
    public CoalescerSettings withMaxParallelParts(int parts) {
        return new CoalescerSettings(
                minSeek, maxMergedSize, maxRequestSize, discardTolerance, minPartSize, parts, minSplitGap);
    }

    public CoalescerSettings {
        if (minPartSize < 1 || maxParallelParts < 1 || minSplitGap < 1) {
            throw new IllegalArgumentException("Need min part size >= 1, max parallel parts >= 1 and min split gap "
                    + ">= 1, got " + minPartSize + ", " + maxParallelParts + " and " + minSplitGap);
        }
        if (minSeek < 0 || maxMergedSize < 1 || maxRequestSize < 1) {
            throw new IllegalArgumentException("Need min seek >= 0, max merged size >= 1 and max request size >= 1, "
                    + "got min seek " + minSeek + ", max merged size " + maxMergedSize + ", max request size "
                    + maxRequestSize);
        }
        if (!(discardTolerance >= 0) || Double.isInfinite(discardTolerance)) {
            throw new IllegalArgumentException(
                    "Discard tolerance must be a finite fraction >= 0, got " + discardTolerance);
        }
    }
}
