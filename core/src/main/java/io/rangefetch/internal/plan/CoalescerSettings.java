package io.rangefetch.internal.plan;

/**
 * The limits {@link RangeCoalescer} works within (see StreamConfig's {@code vectored.*} keys for what each means
 * and how the defaults follow from the network model).
 *
 * @param minSeek the largest gap between two ranges that is read through rather than skipped with another GET
 * @param maxMergedSize the largest span a request merged from several ranges may cover
 * @param maxRequestSize the largest single GET; larger requests are cut into even parts fetched in parallel
 * @param discardTolerance gap bytes above this fraction of a request's useful bytes are dropped, not cached
 */
public record CoalescerSettings(long minSeek, long maxMergedSize, long maxRequestSize, double discardTolerance) {

    public CoalescerSettings {
        if (minSeek < 0 || maxMergedSize < 1 || maxRequestSize < 1) {
            throw new IllegalArgumentException("Need min seek >= 0, max merged size >= 1 and max request size >= 1, "
                    + "got min seek " + minSeek + ", max merged size " + maxMergedSize + ", max request size "
                    + maxRequestSize);
        }
        if (!(discardTolerance >= 0) || Double.isInfinite(discardTolerance)) {
            throw new IllegalArgumentException("Discard tolerance must be a finite fraction >= 0, got "
                    + discardTolerance);
        }
    }
}
