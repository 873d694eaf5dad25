package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;

/** What every reader of one factory shares. */
public record ReaderContext(
        ObjectClient client, BlockCache cache, MetadataCache metadata, FetchScheduler scheduler, ReadPlanner planner,
        RangeCoalescer coalescer) {

    public ReaderContext {
        requireNonNull(client, "client is null");
        requireNonNull(cache, "cache is null");
        requireNonNull(metadata, "metadata is null");
        requireNonNull(scheduler, "scheduler is null");
        requireNonNull(planner, "planner is null");
        requireNonNull(coalescer, "coalescer is null");
    }
}
