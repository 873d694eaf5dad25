package io.rangefetch.client;

/**
 * A half-open byte range {@code [start, end)} of an object. Never empty and never open-ended: every GET
 * Rangefetch sends names both ends, so the server can never stream more than was planned.
 */
public record ByteRange(long start, long end) implements Comparable<ByteRange> {

    public ByteRange {
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException("Invalid byte range [" + start + ", " + end + ")");
        }
    }

    public static ByteRange ofLength(long start, long length) {
        return new ByteRange(start, start + length);
    }

    public long length() {
        return end - start;
    }

    public boolean contains(long position) {
        return position >= start && position < end;
    }

    public boolean overlaps(long otherStart, long otherEnd) {
        return start < otherEnd && otherStart < end;
    }

    /** The HTTP {@code Range} header value, whose end is inclusive. */
    public String toHttpRange() {
        return "bytes=" + start + "-" + (end - 1);
    }

    @Override
    public int compareTo(ByteRange other) {
        int byStart = Long.compare(start, other.start);
        return byStart != 0 ? byStart : Long.compare(end, other.end);
    }

    @Override
    public String toString() {
        return "[" + start + ", " + end + ")";
    }
}
