package io.rangefetch.internal.cache;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Large arrays kept for the next block of their size, counted against the memory budget while they wait.
 *
 * <p><b>Why.</b> A scan at hundreds of MB/s would otherwise allocate, zero and collect a multi-MB array per GET:
 * in the JVM's humongous regions, where that costs more CPU than moving the bytes. So arrays of
 * {@code minBytes} or more are made with lengths rounded up to a multiple of {@code granule} (see
 * {@link #capacityFor}), and when their block is gone they wait here for a block of about the same size.
 *
 * <p><b>What it guarantees.</b> A free array's bytes are reserved in the budget for as long as it waits: it is
 * {@linkplain #offer kept} only if they fit, and {@linkplain #dropUntilFits let go} as soon as the cache needs
 * them for anything else. An array {@linkplain #take taken} leaves with its reservation, which its new owner (a
 * block) gives back when it is done. So free arrays never push the bytes held past the capacity. The pool never
 * sees an array anyone still reads: the cache offers one only when its block's last reference is gone.
 *
 * <p>Not thread-safe: the block cache's eviction lock guards it, like the budget it reserves from.
 */
final class ArrayPool {
    static final int DEFAULT_MIN_BYTES = 1 << 20;
    static final int DEFAULT_GRANULE = 64 << 10;

    private final MemoryBudget budget;
    private final int minBytes;
    private final int granule;
    // By length; within a length, oldest first.
    private final TreeMap<Integer, ArrayDeque<byte[]>> free = new TreeMap<>();
    private long freeBytes;

    ArrayPool(MemoryBudget budget) {
        this(budget, DEFAULT_MIN_BYTES, DEFAULT_GRANULE);
    }

    /** A pool for arrays of at least {@code minBytes} in steps of {@code granule}: tests use small ones. */
    ArrayPool(MemoryBudget budget, int minBytes, int granule) {
        if (minBytes < 1 || granule < 1) {
            throw new IllegalArgumentException(
                    "Recycled arrays need a positive minimum and granule, got " + minBytes + " and " + granule);
        }
        this.budget = budget;
        this.minBytes = minBytes;
        this.granule = granule;
    }

    /** The array length for a block of {@code length} bytes: recyclable lengths are rounded up. */
    int capacityFor(long length) {
        if (length < minBytes) {
            return Math.toIntExact(length);
        }
        return Math.toIntExact((length + granule - 1) / granule * granule);
    }

    /** Whether an array of {@code length} bytes is one the pool keeps. */
    boolean recyclable(int length) {
        return length >= minBytes && length % granule == 0;
    }

    /**
     * The longest array a block of {@code size} bytes may take: an eighth more. Even splits of one window differ
     * by a byte, and a window's parts change size as it ramps: an exact-size match would rarely find one.
     */
    static int largestFitting(int size) {
        return (int) Math.min(Integer.MAX_VALUE, size + (long) (size / 8));
    }

    /**
     * A free array of at least {@code size} bytes and at most {@link #largestFitting} of them, the most recently
     * freed first (it is likelier to be in a CPU cache), or {@code null}. Its bytes stay reserved: they pass to the
     * caller, who gives them back to the budget.
     */
    byte[] take(int size) {
        Map.Entry<Integer, ArrayDeque<byte[]>> fitting = free.ceilingEntry(size);
        if (fitting == null || fitting.getKey() > largestFitting(size)) {
            return null;
        }
        byte[] array = fitting.getValue().pollLast();
        if (fitting.getValue().isEmpty()) {
            free.remove(fitting.getKey());
        }
        freeBytes -= array.length;
        return array;
    }

    /**
     * Keeps an array nobody uses any more if it is {@linkplain #recyclable recyclable} and its bytes fit the
     * budget; {@code false} if it was let go instead.
     */
    boolean offer(byte[] array) {
        if (!recyclable(array.length) || !budget.tryReserve(array.length)) {
            return false;
        }
        free.computeIfAbsent(array.length, length -> new ArrayDeque<>()).addLast(array);
        freeBytes += array.length;
        return true;
    }

    /** Lets free arrays go, smallest and oldest first, until {@code bytes} more fit the budget or none is left. */
    void dropUntilFits(long bytes) {
        Iterator<Map.Entry<Integer, ArrayDeque<byte[]>>> lengths =
                free.entrySet().iterator();
        while (!budget.fits(bytes) && lengths.hasNext()) {
            Map.Entry<Integer, ArrayDeque<byte[]>> length = lengths.next();
            while (!budget.fits(bytes) && !length.getValue().isEmpty()) {
                length.getValue().pollFirst();
                budget.release(length.getKey());
                freeBytes -= length.getKey();
            }
            if (length.getValue().isEmpty()) {
                lengths.remove();
            }
        }
    }

    /** Lets every free array go. */
    void dropAll() {
        budget.release(freeBytes);
        free.clear();
        freeBytes = 0;
    }

    /** Bytes of the arrays waiting here, all of them reserved in the budget. */
    long freeBytes() {
        return freeBytes;
    }
}
