package io.rangefetch.testing;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A stream Rangefetch hands out, seen through the operations every one of them has: what
 * {@link SeekableStreamContract} reads it with. An implementation is a thin view that calls the stream's own method
 * for each (its own vectored read with its library's range type, say) and changes nothing of what it returns or
 * throws, so that the contract sees what the stream's users see.
 */
public interface ContractStream extends Closeable {
    /** One byte at the position, or -1 at the end. */
    int read() throws IOException;

    /** Up to {@code length} bytes at the position: how many, or -1 at the end. */
    int read(byte[] buffer, int offset, int length) throws IOException;

    void seek(long position) throws IOException;

    long getPos() throws IOException;

    /**
     * Exactly {@code length} bytes at {@code position}, the stream's position left alone. A stream without positioned
     * reads (parquet-java's) keeps this default, and its contract says so ({@link
     * SeekableStreamContract#hasPositionedReads()}).
     */
    default void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        throw new UnsupportedOperationException("This stream has no positioned read");
    }

    /** The object's length if the stream itself tells it; empty where its API has no such method. */
    default OptionalLong length() throws IOException {
        return OptionalLong.empty();
    }

    /**
     * One vectored call, with the stream's own range type, for all of {@code ranges}; the futures of their buffers,
     * in the order given. A call the stream refuses throws what the stream threw.
     */
    List<CompletableFuture<ByteBuffer>> readVectored(List<Range> ranges) throws IOException;

    @Override
    void close() throws IOException;

    /**
     * {@code length} bytes at {@code offset}, unchecked: the contract hands the stream bad ranges on purpose, to see
     * it refuse them.
     */
    record Range(long offset, int length) {
        @Override
        public String toString() {
            return length + " bytes at " + offset;
        }
    }
}
