package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One range of a vectored read, validated by the stream: {@code length} bytes at {@code offset}, to be written
 * into {@code buffer} from its position on (absolute writes, so parts of the range may arrive from several
 * threads), then handed over through {@code result} with the limit just past them. On failure the buffer goes
 * back through {@code release} first.
 *
 * <p><b>Public because</b> {@code io.rangefetch.VectoredRanges} makes one per caller range.
 */
public record VectoredRange(
        long offset,
        int length,
        ByteBuffer buffer,
        CompletableFuture<ByteBuffer> result,
        Consumer<ByteBuffer> release) {

    public VectoredRange {
        requireNonNull(buffer, "buffer is null");
        requireNonNull(result, "result is null");
        requireNonNull(release, "release is null");
        if (offset < 0 || length < 0 || buffer.remaining() < length || buffer.isReadOnly()) {
            throw new IllegalArgumentException(
                    "Invalid vectored range of " + length + " bytes at " + offset + " into " + buffer);
        }
    }

    public long end() {
        return offset + length;
    }

    /** Where the byte at {@code position} of the object goes in the buffer. */
    int indexOf(long position) {
        return buffer.position() + (int) (position - offset);
    }

    void complete() {
        buffer.limit(buffer.position() + length);
        result.complete(buffer);
    }

    void fail(Throwable cause) {
        try {
            release.accept(buffer);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
        result.completeExceptionally(cause);
    }
}
