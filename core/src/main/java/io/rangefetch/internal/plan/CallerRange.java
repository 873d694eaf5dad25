package io.rangefetch.internal.plan;

/** One range a vectored read asks for: {@code length} bytes at {@code offset}; may be empty. */
record CallerRange(long offset, long length) {

    CallerRange {
        if (offset < 0 || length < 0 || length > Long.MAX_VALUE - offset) {
            throw new IllegalArgumentException("Invalid range of " + length + " bytes at " + offset);
        }
    }

    long end() {
        return offset + length;
    }
}
