package io.rangefetch.internal.cache;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.events.BudgetFullEvent;
import io.rangefetch.internal.events.CacheEvictionEvent;
import io.rangefetch.internal.events.PredictionWastedEvent;
import io.rangefetch.internal.events.Telemetry;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Every byte a factory holds, under one memory budget.
 *
 * <p><b>Budget.</b> Bytes are reserved in a {@link MemoryBudget} when a block is claimed, before its GET is sent,
 * and released when the block leaves the cache (or when its GET ends, if it left while in flight). So the bytes
 * held, requests in flight included, never exceed {@code capacity}. A reservation that does not fit evicts loaded
 * blocks; one that still does not fit is refused, and the caller reads around the cache (a demand read straight
 * into the reader's buffer) or gives up (a prefetch). Nobody ever waits for memory, so nothing can deadlock on it.
 * The bytes held are those of pending, orphaned and resident blocks, of free arrays, and of raw
 * {@linkplain #reserve reservations}.
 *
 * <p><b>Eviction.</b> Three queues: blocks a sequential reader has moved past (oldest first), loaded
 * prefetches nobody has read yet (oldest first), and blocks a reader has used (least recently used first).
 * Passed blocks go first: a scan rarely comes back. A demand reservation then evicts unread prefetches, then
 * used blocks; a prefetch may only evict used blocks, so one prefetch never pushes out another that a reader
 * is about to reach. In-flight blocks are never evicted: someone is waiting for them.
 *
 * <p><b>Single flight.</b> Blocks of one object never overlap. Callers plan and claim under
 * {@link #lockFor(ObjectId)} (striped by object), so two readers of the same bytes find one block and share
 * its GET. Lookups are lock-free reads of a skip list keyed by (object, start).
 *
 * <p><b>Recycled arrays.</b> Large blocks live in arrays of an {@link ArrayPool}, and an array whose block is gone
 * and unreferenced (see {@link Block}) waits there for the next block of its size. Free arrays count against the
 * budget like blocks; making room drops them before it evicts any block. A claim that finds no free array of its
 * size takes the array of a passed block of that size, if one is unreferenced: trading bytes a scan has left
 * behind for an allocation. That is eviction, so it is done here, not in the pool.
 *
 * <p><b>Locks.</b> Two kinds, always taken in this order: an object's stripe lock ({@link #lockFor}), held by
 * callers while they look up, plan and claim, so that two readers of one range share one block; then the eviction
 * lock, which guards the queues, the budget, the pool, every block's state and every change to the index. A block
 * enters the index and its queue in one step under it, so eviction never removes a block the index has yet to
 * see. Nothing takes a stripe lock while it holds the eviction lock, and no block's future is completed under the
 * eviction lock, so a reader's callback that calls back into the cache never runs under it. Lookups in the index
 * take no lock.
 *
 * <p><b>Why not Caffeine.</b> Caffeine's weight bound counts an entry only once its value is loaded, so the
 * budget would not hold with GETs in flight, and its admission policy cannot express the two-queue rule
 * above. Caffeine does serve the metadata cache, where it fits.
 *
 * <p>Thread-safe.
 *
 * <p><b>Why one file.</b> Everything the eviction lock guards (the queues, the budget, the pool, the blocks' states,
 * the index) is here, so that seeing room and taking it, and a block entering the index and its queue, stay single
 * steps under one lock that can be read in one place. What needs no lock is elsewhere: {@link MemoryBudget} counts,
 * {@link ArrayPool} keeps arrays, {@link Block} is one block's state.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} makes the factory's cache, and the reads of
 * {@code internal.read} look up and claim blocks in it.
 */
public final class BlockCache {
    private static final int STRIPES = 64;

    private final ConcurrentSkipListMap<BlockKey, Block> index = new ConcurrentSkipListMap<>();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private final Object evictionLock = new Object();
    // Guarded by evictionLock.
    private final LinkedHashSet<Block> passed = new LinkedHashSet<>();
    // The same blocks by capacity, so a claim finds one of its size without walking the queue.
    private final TreeMap<Integer, LinkedHashSet<Block>> passedByCapacity = new TreeMap<>();
    private final LinkedHashSet<Block> unreadPrefetches = new LinkedHashSet<>();
    private final LinkedHashSet<Block> used = new LinkedHashSet<>();
    // Guarded by evictionLock too: neither is thread-safe on its own.
    private final MemoryBudget budget;
    private final ArrayPool pool;
    // Guarded by evictionLock: bytes taken with reserve(long) and neither given back nor handed to a block. The
    // budget alone cannot tell them from a block's bytes, so without this count a release of too many would
    // quietly give back bytes that blocks still hold, and the budget would overshoot by as much.
    private long reserved;

    public BlockCache(long capacity) {
        this(capacity, ArrayPool.DEFAULT_MIN_BYTES, ArrayPool.DEFAULT_GRANULE);
    }

    /** A cache that recycles arrays of at least {@code recycleMinBytes}, in steps of {@code recycleGranule}. */
    BlockCache(long capacity, int recycleMinBytes, int recycleGranule) {
        this.budget = new MemoryBudget(capacity);
        this.pool = new ArrayPool(budget, recycleMinBytes, recycleGranule);
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    public long capacity() {
        return budget.capacity();
    }

    /** Bytes reserved now: loaded blocks, requests in flight, free arrays and raw {@link #reserve} reservations. */
    public long heldBytes() {
        synchronized (evictionLock) {
            return budget.held();
        }
    }

    /** The most bytes ever held at once. */
    public long peakHeldBytes() {
        synchronized (evictionLock) {
            return budget.peak();
        }
    }

    /** Bytes of free arrays waiting for a block, included in {@link #heldBytes}. */
    long freeArrayBytes() {
        synchronized (evictionLock) {
            return pool.freeBytes();
        }
    }

    /** The lock to hold while looking up and claiming blocks of {@code object}. */
    public ReentrantLock lockFor(ObjectId object) {
        return stripes[Math.floorMod(object.hashCode(), STRIPES)];
    }

    /** Blocks of {@code object} that overlap {@code [from, to)}, loaded or in flight, by start. */
    public List<Block> blocksOverlapping(ObjectId object, long from, long to) {
        List<Block> result = new ArrayList<>();
        Map.Entry<BlockKey, Block> before = index.lowerEntry(new BlockKey(object, from));
        if (before != null
                && before.getKey().object().equals(object)
                && before.getValue().range().end() > from) {
            result.add(before.getValue());
        }
        ConcurrentNavigableMap<BlockKey, Block> within =
                index.subMap(new BlockKey(object, from), true, new BlockKey(object, to), false);
        result.addAll(within.values());
        return result;
    }

    /**
     * Reserves room for {@code range} and indexes a new in-flight block for it; {@code null} when the budget
     * cannot make room. The caller holds {@link #lockFor} and has checked that nothing overlaps.
     */
    public Block claim(ObjectId object, ByteRange range, boolean prefetch, StatisticsCounter owner) {
        int size = pool.capacityFor(range.length());
        Block block;
        synchronized (evictionLock) {
            byte[] recycled = pool.take(size);
            if (recycled == null && reclaimPassed(size)) {
                recycled = pool.take(size);
            }
            if (recycled != null) {
                // still reserved: the array and its bytes move from the pool to the block
                block = new Block(object, range, recycled.length, prefetch, owner);
                block.recycled = recycled;
            } else {
                if (!reserveMakingRoom(size, prefetch)) {
                    budgetFull(size, prefetch);
                    return null;
                }
                block = new Block(object, range, size, prefetch, owner);
            }
            block.state = Block.State.PENDING;
            index.put(new BlockKey(object, range.start()), block);
        }
        return block;
    }

    /** The array a claimed block's fetch fills: a recycled one, or a new one of the block's capacity. */
    public byte[] bufferFor(Block block) {
        byte[] buffer;
        synchronized (evictionLock) {
            buffer = block.recycled;
            block.recycled = null;
        }
        return buffer != null ? buffer : new byte[block.capacity()];
    }

    /**
     * Takes a reference to a block so that its array is not recycled while the caller copies from it;
     * {@code false} if the block is already gone for good. Every successful call needs one {@link #release}.
     */
    public boolean retain(Block block) {
        return block.retain();
    }

    /**
     * Gives back a reference taken with {@link #retain}; the last one recycles the block's array.
     *
     * @throws IllegalStateException if the block is released more often than it was retained
     */
    public void release(Block block) {
        if (block.releaseReference()) {
            synchronized (evictionLock) {
                // The cache lets go of its own reference only after the block is gone. If the count reached zero
                // before, a reader gave back one reference too many: recycling now would count the array twice
                // and hand it to another block while this one is still served from it.
                if (block.state != Block.State.GONE) {
                    throw new IllegalStateException(
                            "Block " + block + " released more often than retained while the cache holds it");
                }
                recycle(block);
            }
        }
    }

    /** Reserves bytes for a request whose block cannot be indexed yet (its ETag is not known). */
    public boolean reserve(long bytes) {
        synchronized (evictionLock) {
            if (!reserveMakingRoom(bytes, false)) {
                return false;
            }
            reserved += bytes;
            return true;
        }
    }

    /**
     * Gives back bytes taken with {@link #reserve} that will not be cached.
     *
     * @throws IllegalStateException if more are given back than are reserved and not yet given back or cached
     */
    public void release(long bytes) {
        synchronized (evictionLock) {
            takeReserved(bytes);
            budget.release(bytes);
        }
    }

    /**
     * Indexes a block that was loaded on reserved bytes (see {@link #reserve}); {@code false}, with nothing
     * changed, if it overlaps a block already there. The caller holds {@link #lockFor}. On success,
     * {@code data.length} of the reserved bytes become the block's: the caller no longer releases them.
     *
     * @throws IllegalStateException if fewer than {@code data.length} bytes are reserved
     */
    public boolean insertLoaded(ObjectId object, ByteRange range, byte[] data, StatisticsCounter owner) {
        if (!blocksOverlapping(object, range.start(), range.end()).isEmpty()) {
            return false;
        }
        Block block = new Block(object, range, data.length, false, owner);
        block.markRead();
        block.loaded().complete(data);
        synchronized (evictionLock) {
            takeReserved(data.length); // still held: the bytes pass from the reservation to the block
            block.state = Block.State.RESIDENT;
            // Indexed before it can be evicted: indexed after, a block evicted in between would stay in the
            // index, gone, its range looking cached to every reader but never readable.
            index.put(new BlockKey(object, range.start()), block);
            used.add(block);
        }
        return true;
    }

    /** The GET of a claimed block delivered its bytes: make it evictable, then wake its readers. */
    public void complete(Block block, byte[] data) {
        if (data.length != block.capacity()) {
            throw new IllegalArgumentException("Block " + block + " got " + data.length + " bytes");
        }
        synchronized (evictionLock) {
            // A fetch that filled an array of its own leaves the one handed over at claim unused: the budget
            // counts one array per block, so the block must not keep a second one alive.
            block.recycled = null;
            if (block.state == Block.State.PENDING) {
                block.state = Block.State.RESIDENT;
                (block.prefetch() && !block.wasRead() ? unreadPrefetches : used).add(block);
            } else if (block.state == Block.State.ORPHANED) {
                drop(block, "orphaned");
            }
        }
        block.loaded().complete(data);
    }

    /** The GET of a claimed block failed or was cancelled: drop it, then tell its readers why. */
    public void fail(Block block, Throwable cause) {
        boolean releasedByCache = false;
        synchronized (evictionLock) {
            if (block.state == Block.State.PENDING || block.state == Block.State.ORPHANED) {
                index.remove(new BlockKey(block.object(), block.range().start()), block);
                gone(block);
                block.recycled = null;
                releasedByCache = true;
            }
        }
        block.loaded().completeExceptionally(cause);
        if (releasedByCache) {
            release(block);
        }
    }

    /**
     * Takes an in-flight block out of the index because its fetch is being abandoned, so its range can be
     * claimed again at once; its bytes are released when its GET ends. The caller holds {@link #lockFor}.
     */
    public void forget(Block block) {
        synchronized (evictionLock) {
            if (block.state == Block.State.PENDING) {
                leave(block, "forgotten");
            }
        }
    }

    /** A sequential reader moved past this block: it becomes the first to go. */
    public void markPassed(Block block) {
        synchronized (evictionLock) {
            if (block.state == Block.State.RESIDENT && !passed.contains(block)) {
                unreadPrefetches.remove(block);
                used.remove(block);
                passed.add(block);
                passedByCapacity
                        .computeIfAbsent(block.capacity(), capacity -> new LinkedHashSet<>())
                        .add(block);
            }
        }
    }

    /** A reader used bytes of this block: it moves to the back of the used queue. */
    public void markRead(Block block) {
        synchronized (evictionLock) {
            block.markRead();
            if (block.state == Block.State.RESIDENT && !passed.contains(block)) {
                unreadPrefetches.remove(block);
                used.remove(block);
                used.add(block);
            }
        }
    }

    /** Drops every block of {@code object}: a newer version replaced it. */
    public void invalidate(ObjectId object) {
        synchronized (evictionLock) {
            for (Block block : blocksOverlapping(object, 0, Long.MAX_VALUE)) {
                leave(block, "invalidated");
            }
        }
    }

    /** Drops everything; in-flight blocks release their bytes when their GETs end. */
    public void clear() {
        synchronized (evictionLock) {
            for (Block block : new ArrayList<>(index.values())) {
                leave(block, "cleared");
            }
            pool.dropAll();
        }
    }

    // Guarded by evictionLock: the block is gone and nobody reads it; the pool keeps its array if it can.
    private void recycle(Block block) {
        byte[] array = block.loaded().isCompletedExceptionally()
                ? null
                : block.loaded().getNow(null);
        if (array != null) {
            pool.offer(array);
        }
    }

    // Guarded by evictionLock: drops free arrays, then evicts blocks, until `bytes` more fit; then reserves them.
    // False, with nothing reserved, when they cannot fit.
    private boolean reserveMakingRoom(long bytes, boolean prefetch) {
        if (bytes > budget.capacity()) {
            return false; // evicting everything would not help
        }
        pool.dropUntilFits(bytes);
        while (!budget.fits(bytes)) {
            String queue = "passed";
            Block victim = oldest(passed);
            if (victim == null && !prefetch) {
                queue = "unread prefetch";
                victim = oldest(unreadPrefetches);
            }
            if (victim == null) {
                queue = "used";
                victim = oldest(used);
            }
            if (victim == null) {
                return false;
            }
            evicted(victim, queue, prefetch);
            leave(victim, "evicted");
            pool.dropUntilFits(bytes); // the victim's array may have gone to the pool
        }
        return budget.tryReserve(bytes);
    }

    private static Block oldest(LinkedHashSet<Block> queue) {
        Iterator<Block> iterator = queue.iterator();
        return iterator.hasNext() ? iterator.next() : null;
    }

    // Guarded by evictionLock; `why` it leaves, for the event of a prefetch that leaves unread.
    private void leave(Block block, String why) {
        index.remove(new BlockKey(block.object(), block.range().start()), block);
        if (block.state == Block.State.RESIDENT) {
            drop(block, why);
        } else if (block.state == Block.State.PENDING) {
            block.state = Block.State.ORPHANED;
        }
    }

    // Guarded by evictionLock: evicts the oldest unreferenced passed block whose array fits `size`; its array
    // then waits in the pool. The scan is bounded: this runs on every claim.
    private boolean reclaimPassed(int size) {
        int looked = 0;
        for (Map.Entry<Integer, LinkedHashSet<Block>> sameSize : passedByCapacity
                .subMap(size, true, ArrayPool.largestFitting(size), true)
                .entrySet()) {
            if (!pool.recyclable(sameSize.getKey())) {
                continue; // the pool would not keep such an array: evicting its block would gain nothing
            }
            for (Block candidate : sameSize.getValue()) {
                if (++looked > 16) {
                    return false;
                }
                if (candidate.unreferencedByReaders()) {
                    evicted(candidate, "passed", false);
                    leave(candidate, "evicted");
                    return true;
                }
            }
        }
        return false;
    }

    // Guarded by evictionLock.
    private void drop(Block block, String why) {
        if (passed.remove(block)) {
            LinkedHashSet<Block> sameSize = passedByCapacity.get(block.capacity());
            sameSize.remove(block);
            if (sameSize.isEmpty()) {
                passedByCapacity.remove(block.capacity());
            }
        }
        unreadPrefetches.remove(block);
        used.remove(block);
        gone(block);
        if (block.prefetch() && !block.wasRead()) {
            block.owner().prefetchedUnread(block.range().length());
            wasted(block, why);
        }
        if (block.releaseReference()) {
            recycle(block);
        }
    }

    // Guarded by evictionLock, as the three below: events are written to JFR's thread-local buffer, nothing waits.
    private static void evicted(Block victim, String queue, boolean forPrefetch) {
        CacheEvictionEvent event = new CacheEvictionEvent();
        if (event.shouldCommit()) {
            event.bucket = victim.object().bucket();
            event.key = victim.object().key();
            event.rangeStart = victim.range().start();
            event.bytes = victim.capacity();
            event.queue = queue;
            event.forPrefetch = forPrefetch;
            event.commit();
        }
    }

    private static void wasted(Block block, String why) {
        if (block.cause() != null) {
            Telemetry.jvm().prefetchUnread(block.cause(), block.range().length());
        }
        PredictionWastedEvent event = new PredictionWastedEvent();
        if (event.shouldCommit()) {
            event.bucket = block.object().bucket();
            event.key = block.object().key();
            event.rangeStart = block.range().start();
            event.bytes = block.range().length();
            event.cause = block.cause() == null ? "prefetch" : block.cause().label();
            event.why = why;
            event.commit();
        }
    }

    private void budgetFull(long wanted, boolean forPrefetch) {
        BudgetFullEvent event = new BudgetFullEvent();
        if (event.shouldCommit()) {
            event.wanted = wanted;
            event.inUse = budget.held();
            event.budget = budget.capacity();
            event.forPrefetch = forPrefetch;
            event.commit();
        }
    }

    // Guarded by evictionLock: takes `bytes` out of the raw reservations, which must hold that many.
    private void takeReserved(long bytes) {
        MemoryBudget.requireNotNegative(bytes);
        if (bytes > reserved) {
            throw new IllegalStateException("Taking " + bytes + " reserved bytes back, but only " + reserved
                    + " are reserved outside blocks: some were released twice, or never reserved");
        }
        reserved -= bytes;
    }

    // Guarded by evictionLock: the block is gone, and its bytes with it. Its state changes first: a block's bytes
    // are released only on the way out of PENDING, ORPHANED or RESIDENT, so never twice.
    private void gone(Block block) {
        block.state = Block.State.GONE;
        budget.release(block.capacity());
    }

    private record BlockKey(ObjectId object, long start) implements Comparable<BlockKey> {
        @Override
        public int compareTo(BlockKey other) {
            int byObject = object.compareTo(other.object);
            return byObject != 0 ? byObject : Long.compare(start, other.start);
        }
    }
}
