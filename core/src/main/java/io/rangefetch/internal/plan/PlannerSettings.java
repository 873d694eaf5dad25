package io.rangefetch.internal.plan;

/**
 * The request-shaping limits the planner works within (see StreamConfig for what each means).
 * {@code maxRequestSize >= 2 * minRequestSize} so that the even parts of a split never fall below the minimum.
 */
public record PlannerSettings(
        long minRequestSize,
        long maxRequestSize,
        long smallObjectSize,
        int sequentialReads,
        long prefetchInitialSize,
        long prefetchMaxSize) {

    public PlannerSettings {
        if (minRequestSize < 1 || maxRequestSize < 2 * minRequestSize) {
            throw new IllegalArgumentException("Need 1 <= min request size and 2 * min <= max, got min "
                    + minRequestSize + " max " + maxRequestSize);
        }
        if (smallObjectSize < 0 || sequentialReads < 1 || prefetchInitialSize < minRequestSize || prefetchMaxSize < 0) {
            throw new IllegalArgumentException("Invalid planner settings " + this);
        }
    }
}
