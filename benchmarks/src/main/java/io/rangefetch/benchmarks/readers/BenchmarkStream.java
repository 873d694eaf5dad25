package io.rangefetch.benchmarks.readers;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/** An open object as the workloads use it: streaming reads, seeks, positioned reads and vectored reads. */
public interface BenchmarkStream extends Closeable {

    /** Reads from the current position, like {@link java.io.InputStream#read(byte[], int, int)}. */
    int read(byte[] buffer, int offset, int length) throws IOException;

    void seek(long position) throws IOException;

    /** Reads exactly {@code length} bytes at {@code position}, with the reader's positioned-read API. */
    void readFully(long position, byte[] buffer, int offset, int length) throws IOException;

    /** Whether {@link #readVectored} is the reader's own vectored API rather than the fallback below. */
    default boolean hasNativeVectoredRead() {
        return false;
    }

    /**
     * Reads every range, with the reader's vectored API where it has one. The default is what a caller
     * without one does: positioned reads, one after another.
     */
    default List<CompletableFuture<ByteBuffer>> readVectored(List<Span> ranges, IntFunction<ByteBuffer> allocate)
            throws IOException {
        List<CompletableFuture<ByteBuffer>> results = new ArrayList<>(ranges.size());
        for (Span range : ranges) {
            byte[] bytes = new byte[range.length()];
            readFully(range.offset(), bytes, 0, bytes.length);
            ByteBuffer buffer = allocate.apply(range.length());
            buffer.put(bytes).flip();
            results.add(CompletableFuture.completedFuture(buffer));
        }
        return results;
    }

    /** A byte range of a vectored read. */
    record Span(long offset, int length) {
        public Span {
            if (offset < 0 || length < 0) {
                throw new IllegalArgumentException("negative offset or length: " + offset + "+" + length);
            }
        }
    }
}
