package io.rangefetch.internal.fetch;

/** Who waits for a fetch. Demand fetches always leave the queue before prefetches. */
public enum FetchPriority {
    DEMAND,
    PREFETCH
}
