package io.rangefetch.internal.plan;

/**
 * One read to plan, against an object whose length is known.
 *
 * @param streaming {@code true} for reads at the stream's position (they drive sequential detection),
 *     {@code false} for positioned reads, which fetch only what they need
 */
public record ReadRequest(long position, long length, long objectLength, boolean streaming, AccessHint hint) {

    public ReadRequest {
        if (position < 0 || length < 1 || position >= objectLength) {
            throw new IllegalArgumentException("Cannot plan a read of " + length + " bytes at " + position
                    + " of an object of " + objectLength + " bytes");
        }
    }

    public long end() {
        return Math.min(objectLength, position + length);
    }
}
