package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.fetch.FetchScheduler;

/**
 * What one GET of a read ({@link BlockGet}) works with, shared by a factory's streams: the cache its blocks live
 * in, the scheduler it runs on, and the path every GET is sent, retried and resumed through.
 */
record Fetching(BlockCache cache, FetchScheduler scheduler, RetryingSender gets) {

    Fetching {
        requireNonNull(cache, "cache is null");
        requireNonNull(scheduler, "scheduler is null");
        requireNonNull(gets, "gets is null");
    }
}
