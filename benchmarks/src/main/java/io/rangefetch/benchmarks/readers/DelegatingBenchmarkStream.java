package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * A {@link BenchmarkStream} over a reader's own stream: streaming reads and close go to the stream, seeks,
 * positioned reads and (where the reader has one) vectored reads to the reader's own methods for them. Every
 * reader's stream is an {@link InputStream} with those methods under different types, so one class serves all.
 */
final class DelegatingBenchmarkStream implements BenchmarkStream {

    /** Moves a reader's stream. */
    @FunctionalInterface
    interface Seek {
        void to(long position) throws IOException;
    }

    /** A reader's positioned read, which leaves its stream's position alone. */
    @FunctionalInterface
    interface PositionedRead {
        void readFully(long position, byte[] buffer, int offset, int length) throws IOException;
    }

    /** A reader's vectored read: one result per range, in the ranges' order. */
    @FunctionalInterface
    interface VectoredRead {
        List<CompletableFuture<ByteBuffer>> read(List<Span> ranges, IntFunction<ByteBuffer> allocate)
                throws IOException;
    }

    private final InputStream stream;
    private final Seek seek;
    private final PositionedRead positionedRead;
    private final Optional<VectoredRead> vectoredRead;

    DelegatingBenchmarkStream(
            InputStream stream, Seek seek, PositionedRead positionedRead, Optional<VectoredRead> vectoredRead) {
        this.stream = requireNonNull(stream, "stream is null");
        this.seek = requireNonNull(seek, "seek is null");
        this.positionedRead = requireNonNull(positionedRead, "positionedRead is null");
        this.vectoredRead = requireNonNull(vectoredRead, "vectoredRead is null");
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        return stream.read(buffer, offset, length);
    }

    @Override
    public void seek(long position) throws IOException {
        seek.to(position);
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        positionedRead.readFully(position, buffer, offset, length);
    }

    @Override
    public boolean hasNativeVectoredRead() {
        return vectoredRead.isPresent();
    }

    @Override
    public List<CompletableFuture<ByteBuffer>> readVectored(List<Span> ranges, IntFunction<ByteBuffer> allocate)
            throws IOException {
        if (vectoredRead.isEmpty()) {
            return BenchmarkStream.super.readVectored(ranges, allocate);
        }
        return vectoredRead.get().read(ranges, allocate);
    }

    @Override
    public void close() throws IOException {
        stream.close();
    }
}
