package io.rangefetch.it;

import io.rangefetch.SeekableS3InputStream.FileRange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The ways a reader asks a stream ({@link EntryStream}: Rangefetch's own, or an adapter's) for bytes, one call
 * each, so that the fault suites can run one scenario through every read path and get back what the reader got. Each kind returns the bytes it was
 * given, or throws what the stream threw: a vectored range's failure comes out as its cause, as it would from a
 * reader that waits on the range's future.
 */
public enum ReadKind {
    /** {@code readFully(position, ...)}: the stream's position does not move. */
    POSITIONED {
        @Override
        public byte[] read(EntryStream stream, long position, int length) throws IOException {
            byte[] bytes = new byte[length];
            stream.readFully(position, bytes);
            return bytes;
        }
    },
    /** {@code seek}, then {@code read} until {@code length} bytes or the end: fewer only at the end. */
    STREAMING {
        @Override
        public byte[] read(EntryStream stream, long position, int length) throws IOException {
            stream.seek(position);
            byte[] bytes = new byte[length];
            // one read call for the whole length, as a reader with a large buffer makes; more only if it is short
            int read = stream.readNBytes(bytes, 0, length);
            return read == length ? bytes : Arrays.copyOf(bytes, read);
        }
    },
    /** {@code readVectored} of the one range, waiting for its future. */
    VECTORED {
        @Override
        public byte[] read(EntryStream stream, long position, int length) throws IOException {
            return readVectored(stream, List.of(FileRange.of(position, length))).get(0);
        }
    },
    /**
     * {@code readTail}: the last {@code length} bytes, which must start at {@code position} (the bytes say whether
     * they do: the suites' objects are random).
     */
    TAIL {
        @Override
        public byte[] read(EntryStream stream, long position, int length) throws IOException {
            byte[] bytes = new byte[length];
            int read = stream.readTail(bytes);
            return read == length ? bytes : Arrays.copyOf(bytes, read);
        }
    };

    /** No range waits longer: a read that hangs fails the test instead of the build. */
    private static final long RANGE_TIMEOUT_SECONDS = 120;

    /** The bytes a reader gets from {@code stream} asking this way for {@code length} bytes at {@code position}. */
    public abstract byte[] read(EntryStream stream, long position, int length) throws IOException;

    /**
     * Reads {@code ranges} with one {@code readVectored} call and waits for each, in the order given; a range that
     * failed throws its cause, an {@link IOException} or an unchecked one.
     */
    public static List<byte[]> readVectored(EntryStream stream, List<FileRange> ranges) throws IOException {
        List<CompletableFuture<ByteBuffer>> futures = stream.readVectored(ranges);
        List<byte[]> result = new ArrayList<>(ranges.size());
        for (int i = 0; i < ranges.size(); i++) {
            ByteBuffer buffer = awaitRange(stream, ranges.get(i), futures.get(i));
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            result.add(bytes);
        }
        return result;
    }

    private static ByteBuffer awaitRange(EntryStream stream, FileRange range, CompletableFuture<ByteBuffer> data)
            throws IOException {
        try {
            return data.get(RANGE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for " + range + " of " + stream.describe());
        } catch (TimeoutException e) {
            throw new AssertionError(
                    range + " of " + stream.describe() + " not read after " + RANGE_TIMEOUT_SECONDS + " s", e);
        } catch (ExecutionException e) {
            throw rethrown(e.getCause());
        }
    }

    private static IOException rethrown(Throwable cause) {
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof RuntimeException unchecked) {
            throw unchecked;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        throw new AssertionError("a vectored range failed with a checked exception that is no IOException", cause);
    }
}
