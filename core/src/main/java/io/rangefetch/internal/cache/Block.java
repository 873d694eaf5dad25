package io.rangefetch.internal.cache;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.GetPhases;
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
 *
 * <p><b>Public because</b> the reads of {@code internal.read} ({@code ObjectRead}, {@code BlockGet},
 * {@code StreamingState}) claim, fill and copy out of blocks.
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
    private static final Runnable NOTHING = () -> {};

    private final ObjectId object;
    private final ByteRange range;
    private final boolean prefetch;
    private final StatisticsCounter owner;
    private final int capacity;
    private final CompletableFuture<byte[]> loaded = new CompletableFuture<>();
    private final AtomicInteger references = new AtomicInteger(1);
    // Readers waiting for this block's fetch: the reader that claimed a demand block is the first. ABANDONED once
    // nobody waits and the fetch may be stopped (a prefetch whose stream closed, a demand block whose readers
    // were all interrupted); after that nobody may join.
    private final AtomicInteger waiters;
    private volatile Runnable onJoin = NOTHING;
    private volatile Runnable onAbandon = NOTHING;
    private volatile boolean read;
    // Set by the GET that fills it, before it is submitted: for events, what the GET does and why it was sent.
    private volatile GetPhases phases = GetPhases.OFF;
    private volatile FetchCause cause;
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
        this.waiters = new AtomicInteger(prefetch ? 0 : 1);
        // The hooks reach the fetch, and through it whatever the fetch wrote into: once the block has loaded or
        // failed nobody can join or abandon it, so they must not keep all that alive while the block stays cached.
        loaded.whenComplete((data, failure) -> {
            onJoin = NOTHING;
            onAbandon = NOTHING;
        });
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

    /** The GET that fills this block: what it does (for the reads that wait) and why it was sent. */
    public void fetchedBy(GetPhases phases, FetchCause cause) {
        this.phases = requireNonNull(phases, "phases is null");
        this.cause = requireNonNull(cause, "cause is null");
    }

    /** What the GET that fills this block is doing ({@link GetPhases#OFF} while nothing records it). */
    public GetPhases phases() {
        return phases;
    }

    /** Why the GET that filled this block was sent; {@code null} before one was made for it. */
    public FetchCause cause() {
        return cause;
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
     * Registers a reader that waits for this block although it did not claim it, so the fetch can no longer be
     * abandoned under it, and runs the {@linkplain #whenJoined join hook} (a prefetch becomes a demand fetch).
     * {@code false} if the fetch is being abandoned: forget the block and fetch the bytes anew.
     */
    public boolean join() {
        for (int count = waiters.get(); count != ABANDONED; count = waiters.get()) {
            if (waiters.compareAndSet(count, count + 1)) {
                onJoin.run();
                return true;
            }
        }
        return false;
    }

    /**
     * A reader that claimed or joined this block stops waiting for it before it loaded (it was interrupted, or
     * its read failed elsewhere). When it was the last reader of a demand block, the block is abandoned: its
     * {@linkplain #whenAbandoned abandon hook} runs, so the fetch stops unless it fills other blocks someone
     * still wants. A prefetch block nobody waits for any more stays a prefetch: its stream may still read it.
     */
    public void leave() {
        if (waiters.decrementAndGet() == 0 && !prefetch && waiters.compareAndSet(0, ABANDONED)) {
            onAbandon.run();
        }
    }

    /**
     * Gives up on the fetch unless a reader waits for it (the stream that prefetched it closed); {@code true}
     * if it was abandoned now, after running the abandon hook.
     */
    public boolean tryAbandon() {
        if (waiters.compareAndSet(0, ABANDONED)) {
            onAbandon.run();
            return true;
        }
        return false;
    }

    /** Runs {@code hook} when a reader joins (now, if one already waits). It may run more than once. */
    public void whenJoined(Runnable hook) {
        requireNonNull(hook, "hook is null");
        if (loaded.isDone()) {
            return; // nobody joins a loaded block
        }
        onJoin = hook;
        if (waiters.get() > (prefetch ? 0 : 1)) {
            hook.run();
        }
    }

    /** Runs {@code hook} once, when the block is abandoned (see {@link #leave} and {@link #tryAbandon}). */
    public void whenAbandoned(Runnable hook) {
        requireNonNull(hook, "hook is null");
        if (loaded.isDone()) {
            return; // a loaded block is not abandoned
        }
        onAbandon = hook;
        if (waiters.get() == ABANDONED) {
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
