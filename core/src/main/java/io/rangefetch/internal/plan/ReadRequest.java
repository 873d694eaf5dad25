package io.rangefetch.internal.plan;

/**
 * One read to plan, against an object whose length is known.
 *
 * <p><b>Public because</b> {@code internal.read}'s {@code ObjectReader} and {@code PlannedRead} describe a read to the
 * planner with it.
 *
 * @param streaming {@code true} for reads at the stream's position (they drive sequential detection),
 *     {@code false} for positioned reads, which fetch only what they need
 * @param starved whether the read's first bytes are still in flight: the reader caught up with its prefetch
 * @param prefetchEnd the offset sequential prefetch never goes past (the end of the caller's split), or
 *     {@code Long.MAX_VALUE}
 */
public record ReadRequest(
        long position,
        long length,
        long objectLength,
        boolean streaming,
        AccessHint hint,
        boolean starved,
        long prefetchEnd) {

    /** A read whose first bytes are not known to be in flight, prefetching up to the object's end. */
    public ReadRequest(long position, long length, long objectLength, boolean streaming, AccessHint hint) {
        this(position, length, objectLength, streaming, hint, false, Long.MAX_VALUE);
    }

    public ReadRequest {
        if (position < 0 || length < 1 || position >= objectLength) {
            throw new IllegalArgumentException("Cannot plan a read of " + length + " bytes at " + position
                    + " of an object of " + objectLength + " bytes");
        }
    }

    /** The same read, knowing whether its first bytes are still in flight. */
    public ReadRequest starved(boolean waiting) {
        return new ReadRequest(position, length, objectLength, streaming, hint, waiting, prefetchEnd);
    }

    public long end() {
        return Math.min(objectLength, position + length);
    }
}
