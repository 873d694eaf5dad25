package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.format.FormatSession;
import io.rangefetch.internal.read.ObjectReader;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A seekable stream over one S3 object, opened by a {@link StreamFactory}.
 *
 * <p>The streaming methods ({@code read}, {@code seek}, {@code skip}) act at the stream's position and are
 * serialized on the stream. The positioned methods ({@link #readFully(long, byte[], int, int)},
 * {@link #readTail}, {@link #readVectored}) leave the position alone and may be called from many threads at
 * once, without waiting for each other; positioned reads fetch only the bytes asked for, grown to the minimum
 * request size.
 *
 * <p>Never returns bytes of two versions of the object: see {@link ObjectChangedException}.
 */
public final class SeekableS3InputStream extends InputStream {
    private final S3Location location;
    private final ObjectReader reader;
    private final StatisticsCounter statistics;
    private final BooleanSupplier factoryClosed;
    private final FormatSession format;
    // Serializes the streaming methods, which share the position and the reader's sequential state.
    private final ReentrantLock streamingLock = new ReentrantLock();
    // Reused by read(): streaming reads are serialized, and byte-at-a-time readers call it a lot.
    private final byte[] singleByte = new byte[1];
    private long position;
    private volatile boolean closed;

    SeekableS3InputStream(S3Location location, ObjectReader reader, StatisticsCounter statistics,
            BooleanSupplier factoryClosed, FormatSession format) {
        this.location = requireNonNull(location, "location is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.factoryClosed = requireNonNull(factoryClosed, "factoryClosed is null");
        this.format = requireNonNull(format, "format is null");
    }

    public S3Location location() {
        return location;
    }

    @Override
    public int read() throws IOException {
        streamingLock.lock();
        try {
            int read = read(singleByte, 0, 1);
            return read < 0 ? -1 : singleByte[0] & 0xff;
        } finally {
            streamingLock.unlock();
        }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        streamingLock.lock();
        try {
            Objects.checkFromIndexSize(offset, length, buffer.length);
            checkOpen();
            if (length == 0) {
                return 0;
            }
            int read = reader.read(position, buffer, offset, length, true);
            if (read < 0) {
                checkNotPastEnd(position);
                return -1;
            }
            format.afterRead(position, read);
            position += read;
            return read;
        } finally {
            streamingLock.unlock();
        }
    }

    /**
     * Moves the position. A negative position fails here; a position past the end fails here when the length
     * is known, otherwise at the next read (no request is sent just to check a seek).
     */
    public void seek(long newPosition) throws IOException {
        streamingLock.lock();
        try {
            checkOpen();
            if (newPosition < 0) {
                throw new EOFException("Cannot seek to negative position " + newPosition + " in " + location);
            }
            checkNotPastEnd(newPosition);
            position = newPosition;
        } finally {
            streamingLock.unlock();
        }
    }

    public long getPos() {
        streamingLock.lock();
        try {
            return position;
        } finally {
            streamingLock.unlock();
        }
    }

    /** Skips forward without reading; never past the end when the length is known. */
    @Override
    public long skip(long count) throws IOException {
        streamingLock.lock();
        try {
            checkOpen();
            if (count <= 0) {
                return 0;
            }
            long length = reader.knownLength();
            long target = length >= 0 ? Math.min(length, position + count) : position + count;
            long skipped = Math.max(0, target - position);
            position += skipped;
            return skipped;
        } finally {
            streamingLock.unlock();
        }
    }

    /** The ETag of the version this stream reads, once a response or the caller has told it; never sends a request. */
    public Optional<String> etag() {
        return Optional.ofNullable(reader.knownEtag());
    }

    /** The object's length; sends a HEAD only if nothing has told it yet. */
    public long length() throws IOException {
        checkOpen();
        return reader.length();
    }

    /** Bytes left before the end, when the length is known without a request; else 0. */
    @Override
    public int available() throws IOException {
        streamingLock.lock();
        try {
            checkOpen();
            long length = reader.knownLength();
            return length < 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, Math.max(0, length - position));
        } finally {
            streamingLock.unlock();
        }
    }

    /**
     * Reads exactly {@code length} bytes at {@code position} without moving the stream's position.
     *
     * @throws EOFException if the range is not wholly inside the object
     */
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        checkOpen();
        if (position < 0) {
            throw new EOFException("Cannot read at negative position " + position + " in " + location);
        }
        long known = reader.knownLength();
        if (known >= 0 && position + length > known) {
            throw pastEnd(position, length, known);
        }
        int copied = 0;
        while (copied < length) {
            int read = reader.read(position + copied, buffer, offset + copied, length - copied, false);
            if (read < 0) {
                throw pastEnd(position, length, reader.knownLength());
            }
            copied += read;
        }
        format.afterRead(position, length);
    }

    /** Reads the last {@code min(length, object length)} bytes into {@code buffer}; returns how many. */
    public int readTail(byte[] buffer, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        checkOpen();
        int read = reader.readTail(buffer, offset, length);
        format.afterRead(reader.knownLength() - read, read);
        return read;
    }

    /**
     * Reads every range at once: see {@link #readVectored(List, IntFunction, Consumer)}; a failed range's
     * buffer is left to the collector.
     */
    public void readVectored(List<FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
        readVectored(ranges, allocate, buffer -> {});
    }

    /**
     * Reads every range at once and returns without waiting: each range's {@link FileRange#data()} completes
     * with a buffer from {@code allocate} (heap or direct, as it gives) holding exactly the range's bytes.
     * Nearby ranges share a GET, large ones are fetched in parallel parts, and bytes already cached or in flight
     * are not fetched again (see docs/CONFIGURATION.md, {@code vectored.*}). A failed GET fails exactly the
     * ranges it carried, with its cause; their buffers go to {@code release} first. The stream's position does
     * not move, and reads may go on from other threads meanwhile.
     *
     * <p>Ranges may come in any order. Checked before any request, failing the whole call: a negative offset or
     * a range past the end ({@link EOFException}), a negative length, overlapping ranges or a range given before
     * ({@link IllegalArgumentException}). A stream that knows neither the object's length nor its ETag yet first
     * sends the one GET that learns them, for the first range's bytes, and waits for it.
     *
     * @param allocate called on this thread with each range's length; must return a writable buffer with at
     *     least that many bytes remaining
     * @param release takes back buffers of ranges that failed
     */
    public void readVectored(List<FileRange> ranges, IntFunction<ByteBuffer> allocate, Consumer<ByteBuffer> release)
            throws IOException {
        requireNonNull(ranges, "ranges is null");
        requireNonNull(allocate, "allocate is null");
        requireNonNull(release, "release is null");
        checkOpen();
        List<FileRange> sorted = VectoredRanges.checkedInOrder(ranges, location);
        if (sorted.isEmpty()) {
            return;
        }
        long objectLength = reader.knownLength();
        if (objectLength < 0 || reader.knownEtag() == null) {
            FileRange first = sorted.get(0);
            reader.learnVersion(first.offset(), first.length());
            objectLength = reader.knownLength();
        }
        VectoredRanges.checkWithin(sorted, objectLength, location);
        reader.readVectored(VectoredRanges.allocate(ranges, allocate, release));
        format.afterVectoredRead(sorted.stream().filter(range -> range.length() > 0)
                .map(range -> ByteRange.ofLength(range.offset(), range.length())).toList());
    }

    /**
     * Starts fetching {@code ranges} into the factory's cache, at a lower priority than any read, and returns at
     * once: for readers that know what they will read next (the column chunks of the next row group). Nearby
     * ranges share a GET as in {@link #readVectored}; bytes already cached or in flight are not fetched again;
     * when the cache has no room, nothing is fetched. Closing the stream stops what no reader waits for yet.
     * Does nothing before the stream knows the object's version (its length and ETag).
     */
    public void prefetch(List<ByteRange> ranges) throws IOException {
        requireNonNull(ranges, "ranges is null");
        checkOpen();
        ranges.forEach(range -> requireNonNull(range, "range is null"));
        reader.prefetch(ranges);
    }

    /** What this stream has cost and served so far. */
    public StreamStatistics statistics() {
        return snapshot(statistics);
    }

    /**
     * Stops this stream's prefetches that no other reader waits for: queued ones are cancelled, those in flight
     * aborted. Bytes already fetched stay cached for other streams; vectored reads already started complete.
     * Never waits for a read in progress on another thread.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            format.close();
            reader.close();
            // A streaming read in progress may still be copying from the block the reader holds; if one is,
            // the block is simply never recycled (the collector takes it), which costs nothing but reuse.
            if (streamingLock.tryLock()) {
                try {
                    reader.releaseStreamingState();
                } finally {
                    streamingLock.unlock();
                }
            }
        }
    }

    static StreamStatistics snapshot(StatisticsCounter counter) {
        return new StreamStatistics(
                counter.getRequests(),
                counter.headRequests(),
                counter.bytesFetched(),
                counter.bytesServed(),
                counter.cacheHits(),
                counter.cacheMisses(),
                counter.prefetchedBytes(),
                counter.prefetchedBytesUnread());
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException("Stream is closed: " + location);
        }
        if (factoryClosed.getAsBoolean()) {
            throw new IOException("Stream factory is closed: cannot read " + location);
        }
    }

    private void checkNotPastEnd(long target) throws EOFException {
        long length = reader.knownLength();
        if (length >= 0 && target > length) {
            throw new EOFException("Cannot seek to " + target + ": past the end of " + location + " (length " + length + ")");
        }
    }

    private EOFException pastEnd(long position, int length, long objectLength) {
        return new EOFException("Cannot read " + length + " bytes at " + position + ": past the end of " + location
                + " (length " + objectLength + ")");
    }
}
