package io.rangefetch.internal.plan;

/** One range a vectored read asks for: {@code length} bytes at {@code offset}; may be empty. */
public record CallerRange(long offset, long length) {

    public CallerRange {
        if (offset < 0 || length < 0 || length > Long.MAX_VALUE - offset) {
            throw new IllegalArgumentException("Invalid range of " + length + " bytes at " + offset);
        }
    }

    public long end() {
        return offset + length;
    }
}
