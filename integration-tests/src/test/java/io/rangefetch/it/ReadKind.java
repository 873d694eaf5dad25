package io.rangefetch.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.FileRange;
import io.rangefetch.SeekableS3InputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The ways a reader asks a {@link SeekableS3InputStream} for bytes, one call each, so that the fault suites can
 * run one scenario through every read path and get back what the reader got. Each kind returns the bytes it was
 * given, or throws what the stream threw: a vectored range's failure comes out as its cause, as it would from a
 * reader that waits on the range's future.
 */
enum ReadKind {
    /** {@code readFully(position, ...)}: the stream's position does not move. */
    POSITIONED {
        @Override
        byte[] read(SeekableS3InputStream stream, long position, int length) throws IOException {
            byte[] bytes = new byte[length];
            stream.readFully(position, bytes, 0, length);
            return bytes;
        }
    },
    /** {@code seek}, then {@code read} until {@code length} bytes or the end: fewer only at the end. */
    STREAMING {
        @Override
        byte[] read(SeekableS3InputStream stream, long position, int length) throws IOException {
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
        byte[] read(SeekableS3InputStream stream, long position, int length) throws IOException {
            return readVectored(stream, List.of(FileRange.of(position, length))).get(0);
        }
    },
    /** {@code readTail}: the last {@code length} bytes, which must start at {@code position}. */
    TAIL {
        @Override
        byte[] read(SeekableS3InputStream stream, long position, int length) throws IOException {
            byte[] bytes = new byte[length];
            int read = stream.readTail(bytes, 0, length);
            assertThat(stream.length() - read).as("where the tail of %s starts", stream.location()).isEqualTo(position);
            return read == length ? bytes : Arrays.copyOf(bytes, read);
        }
    };

    /** No range waits longer: a read that hangs fails the test instead of the build. */
    private static final long RANGE_TIMEOUT_SECONDS = 120;

    /** The bytes a reader gets from {@code stream} asking this way for {@code length} bytes at {@code position}. */
    abstract byte[] read(SeekableS3InputStream stream, long position, int length) throws IOException;

    /**
     * Reads {@code ranges} with one {@code readVectored} call and waits for each, in the order given; a range that
     * failed throws its cause, an {@link IOException} or an unchecked one.
     */
    static List<byte[]> readVectored(SeekableS3InputStream stream, List<FileRange> ranges) throws IOException {
        stream.readVectored(ranges, ByteBuffer::allocate);
        List<byte[]> result = new ArrayList<>(ranges.size());
        for (FileRange range : ranges) {
            ByteBuffer buffer = awaitRange(stream, range);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            result.add(bytes);
        }
        return result;
    }

    private static ByteBuffer awaitRange(SeekableS3InputStream stream, FileRange range) throws IOException {
        try {
            return range.data().get(RANGE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for " + range + " of " + stream.location());
        } catch (TimeoutException e) {
            throw new AssertionError(range + " of " + stream.location() + " not read after "
                    + RANGE_TIMEOUT_SECONDS + " s", e);
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
