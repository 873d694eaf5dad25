package io.rangefetch.internal.cache;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Every byte a factory holds, under one memory budget.
 *
 * <p><b>Budget.</b> Bytes are reserved when a block is claimed, before its GET is sent, and released when the
 * block leaves the cache (or when its GET ends, if it left while in flight). So the bytes held, requests in
 * flight included, never exceed {@code capacity}. A reservation that does not fit evicts loaded blocks; one that
 * still does not fit is refused, and the caller reads around the cache (a demand read straight into the
 * reader's buffer) or gives up (a prefetch). Nobody ever waits for memory, so nothing can deadlock on it.
 *
 * <p><b>Eviction.</b> Two queues: loaded prefetches nobody has read yet (oldest first), and blocks a reader
 * has used (least recently used first). A demand reservation evicts unread prefetches first, then used
 * blocks; a prefetch may only evict used blocks, so one prefetch never pushes out another that a reader is
 * about to reach. In-flight blocks are never evicted: someone is waiting for them.
 *
 * <p><b>Single flight.</b> Blocks of one object never overlap. Callers plan and claim under
 * {@link #lockFor(ObjectId)} (striped by object), so two readers of the same bytes find one block and share
 * its GET. Lookups are lock-free reads of a skip list keyed by (object, start).
 *
 * <p><b>Why not Caffeine.</b> Caffeine's weight bound counts an entry only once its value is loaded, so the
 * budget would not hold with GETs in flight, and its admission policy cannot express the two-queue rule
 * above. Caffeine does serve the metadata cache, where it fits.
 *
 * <p>Thread-safe.
 */
public final class BlockCache {
    private static final int STRIPES = 64;

    private final long capacity;
    private final ConcurrentSkipListMap<BlockKey, Block> index = new ConcurrentSkipListMap<>();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private final Object evictionLock = new Object();
    // Guarded by evictionLock.
    private final LinkedHashSet<Block> unreadPrefetches = new LinkedHashSet<>();
    private final LinkedHashSet<Block> used = new LinkedHashSet<>();
    private long held;
    private long peakHeld;

    public BlockCache(long capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("Cache capacity must be positive, got " + capacity);
        }
        this.capacity = capacity;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    public long capacity() {
        return capacity;
    }

    /** Bytes reserved now: loaded blocks plus requests in flight. */
    public long heldBytes() {
        synchronized (evictionLock) {
            return held;
        }
    }

    /** The most bytes ever held at once. */
    public long peakHeldBytes() {
        synchronized (evictionLock) {
            return peakHeld;
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
        if (before != null && before.getKey().object().equals(object) && before.getValue().range().end() > from) {
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
        Block block = new Block(object, range, prefetch, owner);
        synchronized (evictionLock) {
            if (!makeRoom(range.length(), prefetch)) {
                return null;
            }
            block.state = Block.State.PENDING;
            held += range.length();
            peakHeld = Math.max(peakHeld, held);
        }
        index.put(new BlockKey(object, range.start()), block);
        return block;
    }

    /** Reserves bytes for a request whose block cannot be indexed yet (its ETag is not known). */
    public boolean reserve(long bytes) {
        synchronized (evictionLock) {
            if (!makeRoom(bytes, false)) {
                return false;
            }
            held += bytes;
            peakHeld = Math.max(peakHeld, held);
            return true;
        }
    }

    /** Gives back bytes taken with {@link #reserve} that will not be cached. */
    public void release(long bytes) {
        synchronized (evictionLock) {
            held -= bytes;
        }
    }

    /**
     * Indexes a block that was loaded on reserved bytes (see {@link #reserve}); {@code false}, with nothing
     * changed, if it overlaps a block already there. The caller holds {@link #lockFor}.
     */
    public boolean insertLoaded(ObjectId object, ByteRange range, byte[] data, StatisticsCounter owner) {
        if (!blocksOverlapping(object, range.start(), range.end()).isEmpty()) {
            return false;
        }
        Block block = new Block(object, range, false, owner);
        block.markRead();
        block.loaded().complete(data);
        synchronized (evictionLock) {
            block.state = Block.State.RESIDENT;
            used.add(block);
        }
        index.put(new BlockKey(object, range.start()), block);
        return true;
    }

    /** The GET of a claimed block delivered its bytes: make it evictable, then wake its readers. */
    public void complete(Block block, byte[] data) {
        if (data.length != block.range().length()) {
            throw new IllegalArgumentException("Block " + block + " got " + data.length + " bytes");
        }
        synchronized (evictionLock) {
            if (block.state == Block.State.PENDING) {
                block.state = Block.State.RESIDENT;
                (block.prefetch() && !block.wasRead() ? unreadPrefetches : used).add(block);
            } else if (block.state == Block.State.ORPHANED) {
                drop(block);
            }
        }
        block.loaded().complete(data);
    }

    /** The GET of a claimed block failed or was cancelled: drop it, then tell its readers why. */
    public void fail(Block block, Throwable cause) {
        synchronized (evictionLock) {
            if (block.state == Block.State.PENDING || block.state == Block.State.ORPHANED) {
                index.remove(new BlockKey(block.object(), block.range().start()), block);
                block.state = Block.State.GONE;
                held -= block.range().length();
            }
        }
        block.loaded().completeExceptionally(cause);
    }

    /** A reader used bytes of this block: it moves to the back of the used queue. */
    public void markRead(Block block) {
        synchronized (evictionLock) {
            block.markRead();
            if (block.state == Block.State.RESIDENT) {
                unreadPrefetches.remove(block);
                used.remove(block);
                used.add(block);
            }
        }
    }

    /** Drops every block of {@code object}: a newer version replaced it. */
    public void invalidate(ObjectId object) {
        List<Block> blocks = blocksOverlapping(object, 0, Long.MAX_VALUE);
        synchronized (evictionLock) {
            for (Block block : blocks) {
                leave(block);
            }
        }
    }

    /** Drops everything; in-flight blocks release their bytes when their GETs end. */
    public void clear() {
        synchronized (evictionLock) {
            for (Block block : new ArrayList<>(index.values())) {
                leave(block);
            }
        }
    }

    // Guarded by evictionLock: evicts until `bytes` more fit, or says they cannot.
    private boolean makeRoom(long bytes, boolean prefetch) {
        if (bytes > capacity) {
            return false;
        }
        while (held + bytes > capacity) {
            Block victim = oldest(prefetch ? null : unreadPrefetches);
            if (victim == null) {
                victim = oldest(used);
            }
            if (victim == null) {
                return false;
            }
            leave(victim);
        }
        return true;
    }

    private static Block oldest(LinkedHashSet<Block> queue) {
        if (queue == null) {
            return null;
        }
        Iterator<Block> iterator = queue.iterator();
        return iterator.hasNext() ? iterator.next() : null;
    }

    // Guarded by evictionLock.
    private void leave(Block block) {
        index.remove(new BlockKey(block.object(), block.range().start()), block);
        if (block.state == Block.State.RESIDENT) {
            drop(block);
        } else if (block.state == Block.State.PENDING) {
            block.state = Block.State.ORPHANED;
        }
    }

    // Guarded by evictionLock.
    private void drop(Block block) {
        unreadPrefetches.remove(block);
        used.remove(block);
        block.state = Block.State.GONE;
        held -= block.range().length();
        if (block.prefetch() && !block.wasRead()) {
            block.owner().prefetchedUnread(block.range().length());
        }
    }

    private record BlockKey(ObjectId object, long start) implements Comparable<BlockKey> {
        @Override
        public int compareTo(BlockKey other) {
            int byObject = object.compareTo(other.object);
            return byObject != 0 ? byObject : Long.compare(start, other.start);
        }
    }
}
