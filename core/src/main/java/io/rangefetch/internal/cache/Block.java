package io.rangefetch.internal.cache;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.util.concurrent.CompletableFuture;

/**
 * A contiguous range of one object version, in flight or held in memory. Its bytes never change once loaded;
 * a reader that holds a block may keep copying from it after the cache has let it go.
 */
public final class Block {
    enum State {
        /** Claimed and counted against the budget; its GET has not completed. */
        PENDING,
        /** Loaded and evictable. */
        RESIDENT,
        /** Dropped from the index while its GET was in flight; its bytes are released when the GET ends. */
        ORPHANED,
        /** Gone; its bytes no longer count against the budget. */
        GONE
    }

    private final ObjectId object;
    private final ByteRange range;
    private final boolean prefetch;
    private final StatisticsCounter owner;
    private final CompletableFuture<byte[]> loaded = new CompletableFuture<>();
    private volatile boolean read;
    // Guarded by the cache's eviction lock.
    State state;

    Block(ObjectId object, ByteRange range, boolean prefetch, StatisticsCounter owner) {
        this.object = requireNonNull(object, "object is null");
        this.range = requireNonNull(range, "range is null");
        this.prefetch = prefetch;
        this.owner = requireNonNull(owner, "owner is null");
    }

    public ObjectId object() {
        return object;
    }

    public ByteRange range() {
        return range;
    }

    public boolean prefetch() {
        return prefetch;
    }

    public StatisticsCounter owner() {
        return owner;
    }

    /** Completes with the bytes, or exceptionally with why the GET failed. */
    public CompletableFuture<byte[]> loaded() {
        return loaded;
    }

    public boolean isDone() {
        return loaded.isDone();
    }

    boolean wasRead() {
        return read;
    }

    void markRead() {
        read = true;
    }

    @Override
    public String toString() {
        return object + " " + range + (prefetch ? " prefetch" : "");
    }
}
