package io.rangefetch.internal.plan;

/**
 * One read to plan, against an object whose length is known.
 *
 * @param streaming {@code true} for reads at the stream's position (they drive sequential detection),
 *     {@code false} for positioned reads, which fetch only what they need
 * @param starved whether the read's first bytes are still in flight: the reader caught up with its prefetch
 */
public record ReadRequest(long position, long length, long objectLength, boolean streaming, AccessHint hint,
        boolean starved) {

    /** A read whose first bytes are not known to be in flight. */
    public ReadRequest(long position, long length, long objectLength, boolean streaming, AccessHint hint) {
        this(position, length, objectLength, streaming, hint, false);
    }

    public ReadRequest {
        if (position < 0 || length < 1 || position >= objectLength) {
            throw new IllegalArgumentException("Cannot plan a read of " + length + " bytes at " + position
                    + " of an object of " + objectLength + " bytes");
        }
    }

    /** The same read, knowing whether its first bytes are still in flight. */
    public ReadRequest starved(boolean waiting) {
        return new ReadRequest(position, length, objectLength, streaming, hint, waiting);
    }

    public long end() {
        return Math.min(objectLength, position + length);
    }
}
