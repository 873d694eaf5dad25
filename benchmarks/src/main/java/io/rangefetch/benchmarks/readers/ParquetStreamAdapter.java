package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.ParquetFileRange;

/**
 * parquet-java's stream over a reader's own stream, the adapter an engine writes when it hands parquet-java a
 * stream that is not Hadoop's. Streaming reads, seeks and positions go to the reader's stream; parquet's
 * vectored read goes to the reader's vectored read when it has one (as iceberg-parquet does for a stream that
 * implements Iceberg's {@code RangeReadable}), else parquet-java reads the ranges itself, one after another.
 */
final class ParquetStreamAdapter extends DelegatingSeekableInputStream {

    /** The reader's position, for {@link #getPos()}. */
    @FunctionalInterface
    interface Position {
        long get() throws IOException;
    }

    /** Moves the reader's stream, for {@link #seek(long)}. */
    @FunctionalInterface
    interface Seek {
        void to(long position) throws IOException;
    }

    /** A reader's vectored read: one result per range, in the ranges' order. */
    @FunctionalInterface
    interface VectoredRead {
        List<CompletableFuture<ByteBuffer>> read(List<Span> ranges, IntFunction<ByteBuffer> allocate)
                throws IOException;
    }

    private final Position position;
    private final Seek seek;
    private final Optional<VectoredRead> vectoredRead;

    ParquetStreamAdapter(InputStream stream, Position position, Seek seek, Optional<VectoredRead> vectoredRead) {
        super(requireNonNull(stream, "stream is null"));
        this.position = requireNonNull(position, "position is null");
        this.seek = requireNonNull(seek, "seek is null");
        this.vectoredRead = requireNonNull(vectoredRead, "vectoredRead is null");
    }

    @Override
    public long getPos() throws IOException {
        return position.get();
    }

    @Override
    public void seek(long newPosition) throws IOException {
        seek.to(newPosition);
    }

    @Override
    public boolean readVectoredAvailable(ByteBufferAllocator allocator) {
        return vectoredRead.isPresent() || super.readVectoredAvailable(allocator);
    }

    @Override
    public void readVectored(List<ParquetFileRange> ranges, ByteBufferAllocator allocator) throws IOException {
        if (vectoredRead.isEmpty()) {
            super.readVectored(ranges, allocator);
            return;
        }
        List<Span> spans = new ArrayList<>(ranges.size());
        for (ParquetFileRange range : ranges) {
            spans.add(new Span(range.getOffset(), range.getLength()));
        }
        List<CompletableFuture<ByteBuffer>> results = vectoredRead.get().read(spans, allocator::allocate);
        for (int i = 0; i < ranges.size(); i++) {
            ranges.get(i).setDataReadFuture(results.get(i));
        }
    }
}
