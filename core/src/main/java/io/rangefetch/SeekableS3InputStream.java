package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.read.ObjectReader;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * A seekable stream over one S3 object, opened by a {@link StreamFactory}.
 *
 * <p>The streaming methods ({@code read}, {@code seek}, {@code skip}) act at the stream's position and are
 * serialized on the stream. The positioned methods ({@link #readFully(long, byte[], int, int)},
 * {@link #readTail}, {@link #readVectored}) leave the position alone and may be called from many threads at
 * once, without waiting for each other; positioned reads fetch only the bytes asked for, grown to the minimum
 * request size.
 *
 * <p><b>One version.</b> A stream never returns bytes of two versions of the object. Every GET after the first
 * names the version's ETag ({@code If-Match}). A read starts on the stream's current version before it sends or
 * copies anything; when the object turns out to have changed, the stream moves to the new version silently
 * only if that read is the only one that ever started on the old version and can start over from nothing (a
 * streaming or positioned read; not a vectored read, which may have handed ranges out already), and the ETag
 * was not given in {@link OpenOptions}. Otherwise that read and every later one fail with
 * {@link ObjectChangedException}: reopen the stream to read the new version. {@link #length()} reveals the
 * version too, so it counts as a read.
 *
 * <p><b>Errors.</b> I/O failures are {@link IOException}s naming the object ({@link java.io.FileNotFoundException},
 * {@link EOFException}, {@link ObjectChangedException}, {@link java.io.InterruptedIOException} when the reading
 * thread is interrupted); a caller's own mistakes are {@link IllegalArgumentException}s or
 * {@link IndexOutOfBoundsException}s. Every wait answers an interrupt.
 *
 * <p><b>Why one file.</b> It is the stream users hold, and every method delegates to the engine in a few lines; what
 * makes it long is the contract each public method states. {@link FileRange}, the one value only
 * {@link #readVectored} takes, is nested here (like the builders of the factory and the config) so that the API
 * stays a handful of top-level types.
 */
public final class SeekableS3InputStream extends InputStream {
    private final S3Location location;
    private final ObjectReader reader;
    private final StatisticsCounter statistics;
    private final BooleanSupplier factoryClosed;
    private final ReadErrors errors;
    private final FormatSession format;
    // Serializes the streaming methods, which share the position and the reader's sequential state.
    private final ReentrantLock streamingLock = new ReentrantLock();
    // Reused by read(): streaming reads are serialized, and byte-at-a-time readers call it a lot.
    private final byte[] singleByte = new byte[1];
    // Written only under the streaming lock; volatile so that getPos() never waits for a read on the network.
    private volatile long position;
    private volatile boolean closed;

    SeekableS3InputStream(
            S3Location location,
            ObjectReader reader,
            StatisticsCounter statistics,
            BooleanSupplier factoryClosed,
            FormatSession format) {
        this.location = requireNonNull(location, "location is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.factoryClosed = requireNonNull(factoryClosed, "factoryClosed is null");
        this.format = requireNonNull(format, "format is null");
        this.errors = new ReadErrors(location, factoryClosed);
    }

    public S3Location location() {
        return location;
    }

    @Override
    public int read() throws IOException {
        lockStreaming();
        try {
            int read = read(singleByte, 0, 1);
            return read < 0 ? -1 : singleByte[0] & 0xff;
        } finally {
            streamingLock.unlock();
        }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        lockStreaming();
        try {
            checkOpen();
            if (length == 0) {
                return 0;
            }
            int read;
            try {
                read = reader.read(position, buffer, offset, length, true);
            } catch (IOException e) {
                throw errors.translate(e);
            }
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
        lockStreaming();
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

    /** The position; never waits, not even for a streaming read in progress on another thread. */
    public long getPos() {
        return position;
    }

    /**
     * Takes the lock that serializes the streaming methods, answering an interrupt while waiting for it: a
     * streaming read on another thread may be waiting for the network.
     */
    private void lockStreaming() throws InterruptedIOException {
        try {
            streamingLock.lockInterruptibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted =
                    new InterruptedIOException("Interrupted while waiting for another streaming read of " + location);
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    /** Skips forward without reading; never past the end when the length is known. */
    @Override
    public long skip(long count) throws IOException {
        lockStreaming();
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

    /**
     * The object's length; sends a HEAD only if nothing has told it yet. It tells the version, so it counts as a
     * read of it (see the class note). Once the length is known it is answered after close too.
     */
    public long length() throws IOException {
        if (closed && reader.knownLength() >= 0) {
            return reader.knownLength();
        }
        checkOpen();
        try {
            return reader.length();
        } catch (IOException e) {
            throw errors.translate(e);
        }
    }

    /** Bytes left before the end, when the length is known without a request; else 0. */
    @Override
    public int available() throws IOException {
        lockStreaming();
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
        if (position > Long.MAX_VALUE - length) {
            throw new EOFException("Cannot read " + length + " bytes at " + position + ": past the end of any object");
        }
        try {
            // the end is checked on the version the read starts on, so it is that version's end
            reader.readFully(position, buffer, offset, length);
        } catch (IOException e) {
            throw errors.translate(e);
        }
        format.afterRead(position, length);
    }

    /** Reads the last {@code min(length, object length)} bytes into {@code buffer}; returns how many. */
    public int readTail(byte[] buffer, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        checkOpen();
        int read;
        try {
            read = reader.readTail(buffer, offset, length);
        } catch (IOException e) {
            throw errors.translate(e);
        }
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
        FileRange first = sorted.get(0);
        try {
            reader.readVectored(first.offset(), first.length(), objectLength -> {
                VectoredRanges.checkWithin(sorted, objectLength, location);
                return VectoredRanges.allocate(ranges, allocate, release, errors);
            });
        } catch (IOException e) {
            throw errors.translate(e);
        }
        format.afterVectoredRead(sorted.stream()
                .filter(range -> range.length() > 0)
                .map(range -> ByteRange.ofLength(range.offset(), range.length()))
                .toList());
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
        reader.prefetch(ranges, FetchCause.CALLER_PREFETCH);
    }

    /** What this stream has cost and served so far. */
    public StreamStatistics statistics() {
        return snapshot(statistics, reader.throttleLimit());
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

    static StreamStatistics snapshot(StatisticsCounter counter, int throttleLimit) {
        return new StreamStatistics(
                counter.getRequests(),
                counter.headRequests(),
                counter.bytesFetched(),
                counter.bytesServed(),
                counter.cacheHits(),
                counter.cacheMisses(),
                counter.prefetchedBytes(),
                counter.prefetchedBytesUnread(),
                counter.retries(),
                counter.resumes(),
                counter.throttledResponses(),
                throttleLimit,
                counter.hedgesSent(),
                counter.hedgesWon());
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
            throw new EOFException(
                    "Cannot seek to " + target + ": past the end of " + location + " (length " + length + ")");
        }
    }

    /**
     * Reads another library's ranges at once (Hadoop's {@code FileRange}, Iceberg's, parquet-java's
     * {@code ParquetFileRange}), as {@link #readVectored(List, IntFunction, Consumer)} reads this stream's own: the
     * one place the adapters convert their ranges and carry failures back. Each range is given, before any request,
     * a future of its bytes ({@link ForeignRanges#deliver}); a range that fails completes it with the failure
     * {@link ForeignRanges#translate} makes of its cause. When the call itself fails (a range past the end,
     * overlapping ranges, the first GET), every range's future fails with that failure, translated, so no reader
     * waits forever, and the call throws it.
     *
     * @param ranges in any order, as the caller's library checked them
     * @param adapter how to read and answer the caller's range type
     */
    public <R> void readVectored(
            List<? extends R> ranges,
            ForeignRanges<R> adapter,
            IntFunction<ByteBuffer> allocate,
            Consumer<ByteBuffer> release)
            throws IOException {
        requireNonNull(ranges, "ranges is null");
        requireNonNull(adapter, "adapter is null");
        List<FileRange> reads = new ArrayList<>(ranges.size());
        List<CompletableFuture<ByteBuffer>> answers = new ArrayList<>(ranges.size());
        for (R range : ranges) {
            requireNonNull(range, "range is null");
            FileRange read = FileRange.of(adapter.offset(range), adapter.length(range));
            CompletableFuture<ByteBuffer> answer = new CompletableFuture<>();
            read.data().whenComplete((buffer, failure) -> {
                if (failure == null) {
                    answer.complete(buffer);
                } else {
                    answer.completeExceptionally(adapter.translate(range, unwrap(failure)));
                }
            });
            adapter.deliver(range, answer);
            reads.add(read);
            answers.add(answer);
        }
        try {
            readVectored(reads, allocate, release);
        } catch (IOException | RuntimeException e) {
            Throwable failure = adapter.translate(ranges.isEmpty() ? null : ranges.get(0), e);
            answers.forEach(answer -> answer.completeExceptionally(failure));
            if (failure instanceof IOException io) {
                throw io;
            }
            if (failure instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw e;
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * How {@link #readVectored(List, ForeignRanges, IntFunction, Consumer)} reads and answers another library's
     * range type {@code R}.
     */
    public interface ForeignRanges<R> {
        long offset(R range);

        int length(R range);

        /**
         * Hands {@code range} the future of its bytes (called once per range, before any request): it completes
         * with a buffer holding exactly the range's bytes, or exceptionally with {@link #translate}'s failure.
         */
        void deliver(R range, CompletableFuture<ByteBuffer> data);

        /**
         * What {@code failure} (a range's, unwrapped from {@link CompletionException}; or the whole call's, then
         * {@code range} is the first range given, {@code null} for none) becomes for the caller's library: by default
         * itself.
         */
        default Throwable translate(R range, Throwable failure) {
            return failure;
        }

        /** A range type read by its accessors, its failures as they are. */
        static <R> ForeignRanges<R> of(
                ToLongFunction<R> offset,
                ToIntFunction<R> length,
                BiConsumer<R, CompletableFuture<ByteBuffer>> deliver) {
            return of(offset, length, deliver, (range, failure) -> failure);
        }

        /** A range type read by its accessors, its failures translated by {@code translate}. */
        static <R> ForeignRanges<R> of(
                ToLongFunction<R> offset,
                ToIntFunction<R> length,
                BiConsumer<R, CompletableFuture<ByteBuffer>> deliver,
                BiFunction<R, Throwable, Throwable> translate) {
            requireNonNull(offset, "offset is null");
            requireNonNull(length, "length is null");
            requireNonNull(deliver, "deliver is null");
            requireNonNull(translate, "translate is null");
            return new ForeignRanges<>() {
                @Override
                public long offset(R range) {
                    return offset.applyAsLong(range);
                }

                @Override
                public int length(R range) {
                    return length.applyAsInt(range);
                }

                @Override
                public void deliver(R range, CompletableFuture<ByteBuffer> data) {
                    deliver.accept(range, data);
                }

                @Override
                public Throwable translate(R range, Throwable failure) {
                    return translate.apply(range, failure);
                }
            };
        }
    }

    /**
     * One range of a {@linkplain SeekableS3InputStream#readVectored vectored read}: {@code length} bytes at
     * {@code offset}, and the future that completes with a buffer holding exactly those bytes (between its position
     * and its limit), or with why they could not be read.
     *
     * <p>A range is read once; its values are checked by the read, not here, so that a bad range fails the whole
     * call, before any request, with a message naming it. Thread-safe.
     */
    public static final class FileRange {
        private final long offset;
        private final int length;
        private final CompletableFuture<ByteBuffer> data = new CompletableFuture<>();

        private FileRange(long offset, int length) {
            this.offset = offset;
            this.length = length;
        }

        public static FileRange of(long offset, int length) {
            return new FileRange(offset, length);
        }

        public long offset() {
            return offset;
        }

        public int length() {
            return length;
        }

        /** The offset just past the range. */
        public long end() {
            return offset + length;
        }

        /** Completes with the bytes once they are in, or exceptionally with the cause of their failure. */
        public CompletableFuture<ByteBuffer> data() {
            return data;
        }

        @Override
        public String toString() {
            return length + " bytes at " + offset;
        }
    }
}
