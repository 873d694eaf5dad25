package io.rangefetch.iceberg;

import static java.util.Objects.requireNonNull;

import io.rangefetch.SeekableS3InputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIOMetricsContext;
import org.apache.iceberg.io.FileRange;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.metrics.Counter;
import org.apache.iceberg.metrics.MetricsContext;
import org.apache.iceberg.metrics.MetricsContext.Unit;

/**
 * Iceberg's view of a Rangefetch stream: every call goes to the {@link SeekableS3InputStream}, which plans,
 * caches and fetches; this class only adapts types, counts Iceberg's read metrics and translates a missing
 * object into Iceberg's {@link NotFoundException}.
 *
 * <p><b>Metrics</b> are counted as Iceberg's own {@code S3InputStream} counts them, so dashboards compare like
 * with like: {@code read.bytes} by the bytes handed to the caller, {@code read.operations} by one per call that
 * returned data (a streaming read that returned any count but end of stream, a {@code readFully} or
 * {@code readTail} of at least one byte). A vectored read counts as Iceberg's default one, a {@code readFully} per
 * non-empty range. They are counted on the caller's thread, when the call returns: Hadoop's metrics context keeps
 * per-thread statistics, and Spark reads a task's input metrics from its own thread's. A vectored read counts
 * its ranges when it returns, before their bytes arrive: they then arrive or fail whole.
 *
 * <p><b>Missing objects.</b> Opening sends no request, as with Iceberg's stream; the first read of a missing
 * object throws {@link NotFoundException} (a {@code RuntimeException}, as Iceberg's stream throws it).
 *
 * <p>Thread-safety is the Rangefetch stream's: streaming calls are serialized, positioned ones may run at once.
 */
final class RangefetchIcebergStream extends SeekableInputStream implements RangeReadable {
    private final String location;
    private final SeekableS3InputStream delegate;
    private final LongConsumer lengthLearned;
    private final Counter readBytes;
    private final Counter readOperations;

    RangefetchIcebergStream(
            String location, SeekableS3InputStream delegate, MetricsContext metrics, LongConsumer lengthLearned) {
        this.location = requireNonNull(location, "location is null");
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.lengthLearned = requireNonNull(lengthLearned, "lengthLearned is null");
        requireNonNull(metrics, "metrics is null");
        this.readBytes = metrics.counter(FileIOMetricsContext.READ_BYTES, Unit.BYTES);
        this.readOperations = metrics.counter(FileIOMetricsContext.READ_OPERATIONS);
    }

    @Override
    public long getPos() {
        return delegate.getPos();
    }

    @Override
    public void seek(long newPos) throws IOException {
        delegate.seek(newPos);
    }

    @Override
    public int read() throws IOException {
        int value;
        try {
            value = delegate.read();
        } catch (FileNotFoundException e) {
            throw notFound(e);
        }
        if (value >= 0) {
            count(1);
        }
        return value;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int read;
        try {
            read = delegate.read(buffer, offset, length);
        } catch (FileNotFoundException e) {
            throw notFound(e);
        }
        if (read >= 0) {
            count(read);
        }
        return read;
    }

    @Override
    public long skip(long count) throws IOException {
        return delegate.skip(count);
    }

    @Override
    public int available() throws IOException {
        return delegate.available();
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        try {
            delegate.readFully(position, buffer, offset, length);
        } catch (FileNotFoundException e) {
            throw notFound(e);
        }
        if (length > 0) {
            count(length);
        }
    }

    @Override
    public int readTail(byte[] buffer, int offset, int length) throws IOException {
        int read;
        try {
            read = delegate.readTail(buffer, offset, length);
        } catch (FileNotFoundException e) {
            throw notFound(e);
        }
        if (read > 0) {
            count(read);
        }
        return read;
    }

    /**
     * Hands all ranges to Rangefetch's vectored read at once (nearby ranges share a GET, large ones are fetched
     * in parallel) and returns without waiting; each Iceberg range's future completes with its Rangefetch
     * range's buffer or failure. If the call itself fails (a range past the end, overlapping ranges), every
     * range's future fails with the same cause, so no reader waits forever.
     */
    @Override
    public void readVectored(List<FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
        requireNonNull(ranges, "ranges is null");
        requireNonNull(allocate, "allocate is null");
        long bytes = 0;
        int operations = 0;
        for (FileRange range : ranges) {
            requireNonNull(range, "range is null");
            if (range.length() > 0) {
                bytes += range.length();
                operations++;
            }
        }
        delegate.readVectored(ranges, icebergRanges, allocate, buffer -> {});
        readBytes.increment(bytes);
        readOperations.increment(operations);
    }

    /** Iceberg's ranges complete futures of their own; a missing object is Iceberg's {@link NotFoundException}. */
    private final SeekableS3InputStream.ForeignRanges<FileRange> icebergRanges = SeekableS3InputStream.ForeignRanges.of(
            FileRange::offset,
            FileRange::length,
            (range, data) -> data.whenComplete((buffer, failure) -> {
                if (failure == null) {
                    range.byteBuffer().complete(buffer);
                } else {
                    range.byteBuffer().completeExceptionally(failure);
                }
            }),
            (range, failure) -> failure instanceof FileNotFoundException missing ? notFound(missing) : failure);

    /**
     * Closes the Rangefetch stream (its prefetches stop) and passes on the object's length if a response told
     * it, so the input file answers {@code getLength()} without a request.
     */
    @Override
    public void close() throws IOException {
        delegate.close();
        long length;
        try {
            length = delegate.length(); // after close: answers only if known, never sends a request
        } catch (IOException notKnown) {
            return;
        }
        lengthLearned.accept(length);
    }

    private void count(int bytes) {
        readBytes.increment(bytes);
        readOperations.increment();
    }

    private NotFoundException notFound(FileNotFoundException e) {
        return notFound(location, e);
    }

    /** A missing object as Iceberg's own streams report it. */
    static NotFoundException notFound(String location, FileNotFoundException e) {
        return new NotFoundException(e, "Location does not exist: %s", location);
    }

    @Override
    public String toString() {
        return "RangefetchIcebergStream[" + location + "]";
    }
}
