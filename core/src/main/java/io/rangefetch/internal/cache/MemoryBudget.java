package io.rangefetch.internal.cache;

/**
 * How many bytes the cache may hold, and how many it holds now.
 *
 * <p>Whoever holds bytes reserves them here first and gives exactly those bytes back, once. So
 * {@code 0 <= held <= capacity} on every path: a reservation that does not fit is refused whole, never granted in
 * part, and giving back more than is held throws at once. A count allowed to go below zero would let later
 * reservations overshoot the capacity by as much, far from the release that caused it.
 *
 * <p>It only counts. Making room (dropping free arrays, evicting blocks) is the {@link BlockCache}'s job, done
 * before it reserves. Not thread-safe: the cache's eviction lock guards it, together with what it counts, so that
 * seeing room and taking it are one step.
 */
final class MemoryBudget {
    private final long capacity;
    private long held;
    private long peak;

    MemoryBudget(long capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("Cache capacity must be positive, got " + capacity);
        }
        this.capacity = capacity;
    }

    long capacity() {
        return capacity;
    }

    long held() {
        return held;
    }

    /** The most bytes ever held at once. */
    long peak() {
        return peak;
    }

    /** Whether {@code bytes} more would fit now. */
    boolean fits(long bytes) {
        requireNotNegative(bytes);
        return bytes <= capacity - held;
    }

    /** Takes {@code bytes} if they fit; {@code false}, with nothing taken, if not. */
    boolean tryReserve(long bytes) {
        if (!fits(bytes)) {
            return false;
        }
        held += bytes;
        peak = Math.max(peak, held);
        return true;
    }

    /** Gives back {@code bytes} taken with {@link #tryReserve}. */
    void release(long bytes) {
        requireNotNegative(bytes);
        if (bytes > held) {
            throw new IllegalStateException("Releasing " + bytes + " bytes but only " + held
                    + " are held: some bytes were released twice or never reserved");
        }
        held -= bytes;
    }

    static void requireNotNegative(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("A byte count cannot be negative, got " + bytes);
        }
    }

    @Override
    public String toString() {
        return held + " of " + capacity + " bytes held (peak " + peak + ")";
    }
}
