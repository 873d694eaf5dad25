package io.rangefetch.parquet;

import static java.util.Objects.requireNonNull;

import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.SeekableS3InputStream.ForeignRanges;
import java.io.IOException;
import java.util.List;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.ParquetFileRange;

/**
 * parquet-java's stream over a Rangefetch stream. Streaming reads and seeks go to the stream; parquet-java's
 * vectored read (a row group's column chunks, all at once) goes to {@link SeekableS3InputStream#readVectored},
 * which coalesces nearby chunks and fetches the rest in parallel; the stream's Parquet format policy then
 * prefetches the same columns of the row groups that follow (see {@link ParquetColumnSession}). Buffers come from
 * parquet-java's allocator and go back to it when their range fails.
 */
final class S3ParquetStream extends DelegatingSeekableInputStream {
    private final SeekableS3InputStream stream;
    private final Runnable onClose;

    /** @param onClose told once the stream closed (its file keeps what the stream learned) */
    S3ParquetStream(SeekableS3InputStream stream, Runnable onClose) {
        super(requireNonNull(stream, "stream is null"));
        this.stream = stream;
        this.onClose = requireNonNull(onClose, "onClose is null");
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            onClose.run();
        }
    }

    @Override
    public long getPos() {
        return stream.getPos();
    }

    @Override
    public void seek(long newPosition) throws IOException {
        stream.seek(newPosition);
    }

    @Override
    public boolean readVectoredAvailable(ByteBufferAllocator allocator) {
        return true;
    }

    @Override
    public void readVectored(List<ParquetFileRange> ranges, ByteBufferAllocator allocator) throws IOException {
        requireNonNull(ranges, "ranges is null");
        requireNonNull(allocator, "allocator is null");
        stream.readVectored(ranges, PARQUET_RANGES, allocator::allocate, allocator::release);
    }

    /** parquet-java's ranges take their bytes' future as it is. */
    private static final ForeignRanges<ParquetFileRange> PARQUET_RANGES = ForeignRanges.of(
            ParquetFileRange::getOffset, ParquetFileRange::getLength, ParquetFileRange::setDataReadFuture);

    @Override
    public String toString() {
        return "S3ParquetStream{" + stream.location() + " at " + stream.getPos() + "}";
    }
}
