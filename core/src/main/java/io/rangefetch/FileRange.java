package io.rangefetch;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One range of a {@linkplain SeekableS3InputStream#readVectored vectored read}: {@code length} bytes at
 * {@code offset}, and the future that completes with a buffer holding exactly those bytes (between its position
 * and its limit), or with why they could not be read.
 *
 * <p>A range is read once; its values are checked by the read, not here, so that a bad range fails the whole
 * call, before any request, with a message naming it. Thread-safe.
 */
public final class FileRange {
    private final long offset;
    private final int length;
    private final CompletableFuture<ByteBuffer> data = new CompletableFuture<>();

    private FileRange(long offset, int length) {
        this.offset = offset;
        this.length = length;
    }

    public static FileRange of(long offset, int length) {
        return new FileRange(offset, length);
    }

    public long offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    /** The offset just past the range. */
    public long end() {
        return offset + length;
    }

    /** Completes with the bytes once they are in, or exceptionally with the cause of their failure. */
    public CompletableFuture<ByteBuffer> data() {
        return data;
    }

    @Override
    public String toString() {
        return length + " bytes at " + offset;
    }
}
