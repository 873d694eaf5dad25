package io.rangefetch.internal.fetch;

/**
 * Who waits for a fetch. Demand fetches always leave the queue before prefetches.
 *
 * <p><b>Public because</b> {@code internal.read} and {@code internal.list.ParallelListing} submit their fetches with
 * one.
 */
public enum FetchPriority {
    DEMAND,
    PREFETCH
}
