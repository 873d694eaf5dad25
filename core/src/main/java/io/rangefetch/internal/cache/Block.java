package io.rangefetch.internal.cache;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A contiguous range of one object version, in flight or held in memory. Its bytes never change once loaded.
 *
 * <p>Large blocks live in arrays the cache recycles, so a block is reference counted: the cache holds one
 * reference while the block is indexed, and every reader {@linkplain BlockCache#retain retains} it while it
 * copies out. The array goes back to the pool only when the count drops to zero, so no reader ever sees it
 * refilled with other bytes. The array may be longer than the range: only its first {@code range.length()}
 * bytes are the block's.
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

    private static final int ABANDONED = -1;

    private final ObjectId object;
    private final ByteRange range;
    private final boolean prefetch;
    private final StatisticsCounter owner;
    private final int capacity;
    private final CompletableFuture<byte[]> loaded = new CompletableFuture<>();
    private final AtomicInteger references = new AtomicInteger(1);
    // Readers that wait for this block's fetch without having claimed it; ABANDONED once the claimer gave up on
    // it (its stream closed), after which nobody may join.
    private final AtomicInteger joiners = new AtomicInteger();
    private volatile Runnable onJoin;
    private volatile boolean read;
    // Guarded by the cache's eviction lock.
    State state;
    // A recycled array the fetch fills, handed over at claim; guarded by the cache's eviction lock.
    byte[] recycled;

    Block(ObjectId object, ByteRange range, int capacity, boolean prefetch, StatisticsCounter owner) {
        this.object = requireNonNull(object, "object is null");
        this.range = requireNonNull(range, "range is null");
        if (capacity < range.length()) {
            throw new IllegalArgumentException("Capacity " + capacity + " cannot hold " + range);
        }
        this.capacity = capacity;
        this.prefetch = prefetch;
        this.owner = requireNonNull(owner, "owner is null");
    }

    /** The bytes this block counts against the budget: the length of its array. */
    public int capacity() {
        return capacity;
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

    /** Takes a reference unless the block is already released for good. */
    boolean retain() {
        for (int count = references.get(); count > 0; count = references.get()) {
            if (references.compareAndSet(count, count + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Whether only the cache holds this block (no reader is copying from it right now). */
    boolean unreferencedByReaders() {
        return references.get() == 1;
    }

    /** Drops a reference; {@code true} when it was the last one. */
    boolean releaseReference() {
        int left = references.decrementAndGet();
        if (left < 0) {
            throw new IllegalStateException("Block " + this + " released more often than retained");
        }
        return left == 0;
    }

    /**
     * Registers a reader that waits for this block although it did not claim it, so the claimer can no longer
     * abandon the fetch, and runs the claimer's {@linkplain #whenJoined hook} (a prefetch becomes a demand
     * fetch). {@code false} if the fetch is being abandoned: forget the block and fetch the bytes anew.
     */
    public boolean join() {
        for (int count = joiners.get(); count != ABANDONED; count = joiners.get()) {
            if (joiners.compareAndSet(count, count + 1)) {
                Runnable hook = onJoin;
                if (hook != null) {
                    hook.run();
                }
                return true;
            }
        }
        return false;
    }

    /** Gives up on the fetch unless a reader joined it; {@code true} if it may now be stopped. */
    public boolean tryAbandon() {
        return joiners.compareAndSet(0, ABANDONED);
    }

    /** Runs {@code hook} when a reader joins (now, if one already has). It may run more than once. */
    public void whenJoined(Runnable hook) {
        onJoin = requireNonNull(hook, "hook is null");
        if (joiners.get() > 0) {
            hook.run();
        }
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
