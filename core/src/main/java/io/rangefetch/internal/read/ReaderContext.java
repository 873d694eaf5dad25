package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;

/** What every reader of one factory shares. Immutable. */
public final class ReaderContext {
    private final ObjectClient client;
    private final BlockCache cache;
    private final MetadataCache metadata;
    private final FetchScheduler scheduler;
    private final ReadPlanner planner;
    private final RangeCoalescer coalescer;
    private final GetPath gets;

    public ReaderContext(ObjectClient client, BlockCache cache, MetadataCache metadata, FetchScheduler scheduler,
            ReadPlanner planner, RangeCoalescer coalescer, RetrySettings retry) {
        this.client = requireNonNull(client, "client is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.metadata = requireNonNull(metadata, "metadata is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.planner = requireNonNull(planner, "planner is null");
        this.coalescer = requireNonNull(coalescer, "coalescer is null");
        this.gets = new GetPath(client, planner.settings().maxRequestSize(), retry);
    }

    public ObjectClient client() {
        return client;
    }

    public BlockCache cache() {
        return cache;
    }

    public MetadataCache metadata() {
        return metadata;
    }

    public FetchScheduler scheduler() {
        return scheduler;
    }

    public ReadPlanner planner() {
        return planner;
    }

    public RangeCoalescer coalescer() {
        return coalescer;
    }

    GetPath gets() {
        return gets;
    }
}
