package io.rangefetch.internal.plan;

/**
 * The request-shaping limits the planner works within (see StreamConfig for what each means).
 * {@code maxRequestSize >= 2 * minRequestSize} so that the even parts of a split never fall below the minimum.
 * {@code prefetchParallelism} is how many GETs a full prefetch window is cut into (the fetch concurrency), in
 * parts of at least {@code prefetchMinPartSize} ({@link RequestCostModel#minPartSize}): a part smaller than what
 * one connection moves during a first-byte latency spends more time waiting than transferring. A small object
 * read whole is cut into as many parallel parts of at least {@code smallObjectPartSize} as
 * {@code prefetchParallelism} allows.
 *
 * <p><b>Public because</b> {@code io.rangefetch.EngineSettings} makes it from the configuration, and
 * {@code internal.read.Predictions} reads it.
 */
public record PlannerSettings(
        long minRequestSize,
        long maxRequestSize,
        long smallObjectSize,
        int sequentialReads,
        long prefetchInitialSize,
        long prefetchMaxSize,
        int prefetchParallelism,
        long prefetchMinPartSize,
        long smallObjectPartSize) {

    public PlannerSettings {
        if (minRequestSize < 1 || maxRequestSize < 2 * minRequestSize) {
            throw new IllegalArgumentException("Need 1 <= min request size and 2 * min <= max, got min "
                    + minRequestSize + " max " + maxRequestSize);
        }
        if (smallObjectSize < 0
                || sequentialReads < 1
                || prefetchInitialSize < minRequestSize
                || prefetchMaxSize < 0
                || prefetchParallelism < 1
                || prefetchMinPartSize < minRequestSize
                || smallObjectPartSize < minRequestSize) {
            throw new IllegalArgumentException("Invalid planner settings " + this);
        }
    }

    /** The same settings with another small-object size. */
    public PlannerSettings withSmallObjectSize(long size) {
        return new PlannerSettings(
                minRequestSize,
                maxRequestSize,
                size,
                sequentialReads,
                prefetchInitialSize,
                prefetchMaxSize,
                prefetchParallelism,
                prefetchMinPartSize,
                smallObjectPartSize);
    }
}
