package io.rangefetch.hadoop;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamFactory;
import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.fs.s3a.statistics.S3AInputStreamStatistics;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;

/**
 * Hadoop's input stream contract over Rangefetch streams, on any Hadoop from 3.3.5: what both the S3A stream factory's
 * streams (Hadoop 3.4.2 and later, {@link RangefetchObjectInputStream}) and {@code RangefetchS3AFileSystem}'s (3.3.x,
 * 3.4.0–3.4.1) are. It names no type of S3A's stream factory seam, so it links on Hadoop lines that lack it.
 *
 * <p><b>What it adds to the Rangefetch stream.</b> Hadoop's stream contract (positioned reads return -1 at the
 * end, {@code readFully} past it fails with {@link EOFException}, vectored ranges checked as Hadoop checks them:
 * {@link FileRanges}), S3A's statistics (every read reaches {@link S3AInputStreamStatistics}, the file system's
 * {@link FileSystem.Statistics} and, with Rangefetch's own counts, {@link #getIOStatistics()}), S3A's change
 * exception ({@link ObjectChangedException} becomes {@link RemoteFileChangedException}), and {@link #unbuffer()}.
 * What differs between the entry points (what a close hands on, what is released with the stream) is its
 * {@link Binding}'s.
 *
 * <p><b>Unbuffer.</b> Closing the Rangefetch stream frees what it holds (its block, its prefetches); the stream
 * is reopened at the same position on the next read, pinned to the ETag the first one read, so the bytes after
 * an unbuffer come from the same version as those before it or the read fails.
 *
 * <p><b>Threads.</b> The streaming methods, {@code unbuffer} and {@code close} are serialized on this object, as
 * in S3A's own streams. Positioned and vectored reads take the lock only to find (or reopen) the Rangefetch
 * stream, then run without it, concurrently. A positioned read that fails on a Rangefetch stream an
 * {@code unbuffer} retired meanwhile runs again on the stream in use now (reopened if need be, pinned to the same
 * ETag), so an unbuffer never fails it; its own failures (a changed object) fail it there too. A vectored read's
 * ranges already handed to the retired stream may still fail with "closed".
 *
 * <p><b>Why one file.</b> It is the whole of Hadoop's stream contract over one Rangefetch stream, and every method of
 * it goes through the one lock's rule above (which Rangefetch stream is in use, and when a read runs again on its
 * successor); splitting the contract's groups apart would scatter that rule. The checks of vectored ranges stand
 * alone ({@link FileRanges}).
 */
final class RangefetchFSInputStream extends FSInputStream
        implements ByteBufferReadable,
                ByteBufferPositionedReadable,
                CanUnbuffer,
                StreamCapabilities,
                IOStatisticsSource {
    /** The capabilities a Rangefetch stream has; lower case, as probes compare. */
    static final Set<String> CAPABILITIES = capabilities();

    /** Vectored reads only where Hadoop has them (3.3.5 and later): 3.3.4's callers cannot ask for one. */
    private static Set<String> capabilities() {
        Set<String> capabilities = new HashSet<>(Set.of(
                StreamCapabilities.READBYTEBUFFER, StreamCapabilities.PREADBYTEBUFFER, StreamCapabilities.UNBUFFER));
        if (HadoopLine.VECTORED_READS) {
            capabilities.add(StreamCapabilities.VECTOREDIO);
        }
        return Set.copyOf(capabilities);
    }

    /** What an entry point does when its stream lets go: the S3A seam and the file system differ here. */
    interface Binding {
        /** The stream closed or was abandoned: release what the entry point holds for it. Never throws. */
        void released();

        /**
         * The stream closed: hand its statistics on (to the thread's IOStatistics context, the file system's
         * instrumentation), after {@link #released}.
         */
        void closed(RangefetchIOStatistics statistics);
    }

    private final StreamFactory factory;
    private final Binding binding;
    private final S3Location location;
    private final String uri;
    private final long contentLength;
    private final String inputPolicy;
    private final S3AInputStreamStatistics streamStatistics;
    private final FileSystem.Statistics fileSystemStatistics;
    private final RangefetchIOStatistics ioStatistics;
    // guarded by this: the options the next (re)open uses, pinned to the ETag once a stream has learned it
    private OpenOptions options;
    // counts of the Rangefetch streams unbuffer closed; guarded by this
    private StreamStatistics retired = RangefetchIOStatistics.none();
    // null after unbuffer() until the next read; written under this, volatile for getPos()
    private volatile SeekableS3InputStream current;
    // the position while current is null
    private volatile long unbufferedPosition;
    private volatile boolean closed;

    /**
     * Opens the first Rangefetch stream; fails as {@link StreamFactory#open} does.
     *
     * @param uri the object as S3A names it ({@code s3a://bucket/key}), for messages
     * @param options how to open it: the length and ETag the caller knows, the read policy
     * @param inputPolicy S3A's input policy, for {@link #toString()}
     * @param fileSystemStatistics the file system's per-thread statistics, or {@code null}
     */
    RangefetchFSInputStream(
            StreamFactory factory,
            S3Location location,
            String uri,
            long contentLength,
            OpenOptions options,
            String inputPolicy,
            S3AInputStreamStatistics streamStatistics,
            FileSystem.Statistics fileSystemStatistics,
            Binding binding) {
        this.factory = requireNonNull(factory, "factory is null");
        this.location = requireNonNull(location, "location is null");
        this.uri = requireNonNull(uri, "uri is null");
        this.contentLength = contentLength;
        this.options = requireNonNull(options, "options is null");
        this.inputPolicy = String.valueOf(inputPolicy);
        this.streamStatistics = requireNonNull(streamStatistics, "streamStatistics is null");
        this.fileSystemStatistics = fileSystemStatistics;
        this.binding = requireNonNull(binding, "binding is null");
        this.ioStatistics = new RangefetchIOStatistics(streamStatistics.getIOStatistics(), this::rangefetchStatistics);
        this.current = factory.open(location, options);
        streamStatistics.streamOpened();
    }

    @Override
    public synchronized int read() throws IOException {
        SeekableS3InputStream stream = stream();
        long position = stream.getPos();
        streamStatistics.readOperationStarted(position, 1);
        int read;
        try {
            read = stream.read();
        } catch (IOException e) {
            throw failed(e, "read", position);
        }
        if (read >= 0) {
            bytesRead(1);
        }
        streamStatistics.readOperationCompleted(1, read >= 0 ? 1 : -1);
        return read;
    }

    @Override
    public synchronized int read(byte[] buffer, int offset, int length) throws IOException {
        validatePositionedReadArgs(0, buffer, offset, length);
        SeekableS3InputStream stream = stream();
        if (length == 0) {
            return 0;
        }
        long position = stream.getPos();
        streamStatistics.readOperationStarted(position, length);
        int read;
        try {
            read = stream.read(buffer, offset, length);
        } catch (IOException e) {
            throw failed(e, "read", position);
        }
        if (read > 0) {
            bytesRead(read);
        }
        streamStatistics.readOperationCompleted(length, read);
        return read;
    }

    /** Reads into a heap or direct buffer at the stream's position, as far as the buffer has room. */
    @Override
    public synchronized int read(ByteBuffer buffer) throws IOException {
        if (buffer.hasArray()) {
            int read = read(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            if (read > 0) {
                buffer.position(buffer.position() + read);
            }
            return read;
        }
        byte[] bytes = new byte[buffer.remaining()];
        int read = read(bytes, 0, bytes.length);
        if (read > 0) {
            buffer.put(bytes, 0, read);
        }
        return read;
    }

    @Override
    public synchronized void seek(long position) throws IOException {
        checkNotClosed();
        if (position < 0) {
            throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + " " + position + ": " + uri);
        }
        if (position > contentLength) {
            throw new EOFException(FSExceptionMessages.CANNOT_SEEK_PAST_EOF + " " + position + ": " + uri + " has "
                    + contentLength + " bytes");
        }
        long from = getPos();
        if (position > from) {
            streamStatistics.seekForwards(position - from, 0);
        } else if (position < from) {
            streamStatistics.seekBackwards(position - from);
        }
        SeekableS3InputStream stream = current;
        if (stream == null) {
            unbufferedPosition = position;
        } else {
            stream.seek(position);
        }
    }

    /** Never waits, not even for a read in progress. */
    @Override
    public long getPos() {
        SeekableS3InputStream stream = current;
        return stream == null ? unbufferedPosition : stream.getPos();
    }

    /** There is one copy of an S3 object. */
    @Override
    public boolean seekToNewSource(long targetPosition) {
        return false;
    }

    @Override
    public synchronized int available() throws IOException {
        checkNotClosed();
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, contentLength - getPos()));
    }

    @Override
    public long skip(long count) throws IOException {
        if (count <= 0) {
            return 0;
        }
        synchronized (this) {
            long from = getPos();
            long to = Math.min(contentLength, from + count);
            seek(to);
            return to - from;
        }
    }

    /** Reads up to {@code length} bytes at {@code position}; -1 at or past the end. Leaves the position alone. */
    @Override
    public int read(long position, byte[] buffer, int offset, int length) throws IOException {
        validatePositionedReadArgs(position, buffer, offset, length);
        SeekableS3InputStream stream = stream();
        if (length == 0) {
            return 0;
        }
        if (position >= contentLength) {
            return -1;
        }
        int toRead = (int) Math.min(length, contentLength - position);
        readFully(stream, position, buffer, offset, toRead);
        return toRead;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        validatePositionedReadArgs(position, buffer, offset, length);
        SeekableS3InputStream stream = stream();
        if (length == 0) {
            return;
        }
        if (position + length > contentLength) {
            throw new EOFException(FSExceptionMessages.EOF_IN_READ_FULLY + " " + length + " bytes at " + position
                    + " of " + uri + ", which has " + contentLength);
        }
        readFully(stream, position, buffer, offset, length);
    }

    private void readFully(SeekableS3InputStream stream, long position, byte[] buffer, int offset, int length)
            throws IOException {
        streamStatistics.readFullyOperationStarted(position, length);
        SeekableS3InputStream reading = stream;
        while (true) {
            try {
                reading.readFully(position, buffer, offset, length);
                break;
            } catch (IOException e) {
                SeekableS3InputStream instead = replacing(reading);
                if (instead == null) {
                    throw failed(e, "readFully", position);
                }
                reading = instead; // the whole read again: every byte of it from one Rangefetch stream
            }
        }
        bytesRead(length);
    }

    /**
     * The Rangefetch stream to run a failed positioned read on again: the one in use now (reopened if need be),
     * when an {@link #unbuffer()} retired {@code failedOn} meanwhile; {@code null} when the failure is the read's
     * own (the stream it ran on is still the one in use) or this stream is closed.
     */
    private synchronized SeekableS3InputStream replacing(SeekableS3InputStream failedOn) throws IOException {
        return closed || failedOn == current ? null : stream();
    }

    @Override
    public int read(long position, ByteBuffer buffer) throws IOException {
        byte[] bytes = new byte[buffer.remaining()];
        int read = read(position, bytes, 0, bytes.length);
        if (read > 0) {
            buffer.put(bytes, 0, read);
        }
        return read;
    }

    @Override
    public void readFully(long position, ByteBuffer buffer) throws IOException {
        byte[] bytes = new byte[buffer.remaining()];
        readFully(position, bytes, 0, bytes.length);
        buffer.put(bytes);
    }

    @Override
    public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
        readVectored(ranges, allocate, buffer -> {});
    }

    /**
     * Hands every range to Rangefetch at once, which merges nearby ones into shared GETs and splits large ones;
     * returns without waiting. Each range's future fails alone, with S3A's exception for a changed object. (Hadoop
     * 3.4.2 added this form to {@code PositionedReadable}; no {@code @Override}, so that this class compiles and links
     * on the lines before it too.)
     */
    public void readVectored(
            List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate, Consumer<ByteBuffer> release)
            throws IOException {
        requireNonNull(allocate, "allocate is null");
        requireNonNull(release, "release is null");
        SeekableS3InputStream stream = stream();
        List<? extends FileRange> sorted = FileRanges.validateAndSort(ranges, contentLength, uri);
        streamStatistics.readVectoredOperationStarted(sorted.size(), sorted.size());
        long bytes = 0;
        for (FileRange range : sorted) {
            bytes += range.getLength();
        }
        stream.readVectored(sorted, hadoopRanges(), allocate, release);
        // Counted here, on the caller's thread, not as ranges complete on Rangefetch's: the file system's statistics
        // are per thread, and engines (Spark's task input metrics) read only the threads that call the stream
        if (fileSystemStatistics != null) {
            fileSystemStatistics.incrementBytesRead(bytes);
        }
    }

    /**
     * Hadoop's ranges take their bytes' future, counted in the stream's statistics as each arrives (the file
     * system's was counted when asked); a failure is counted and a changed object is S3A's exception. Made per call,
     * not held in a field: {@link FileRange} exists only on the lines that have vectored reads (3.3.5 and later), and
     * this class must load on 3.3.4 too.
     */
    private SeekableS3InputStream.ForeignRanges<FileRange> hadoopRanges() {
        return SeekableS3InputStream.ForeignRanges.of(
                FileRange::getOffset,
                FileRange::getLength,
                this::deliverCounted,
                (range, failure) -> failure instanceof IOException io
                        ? failed(io, "readVectored", range == null ? 0 : range.getOffset())
                        : failure);
    }

    private void deliverCounted(FileRange range, CompletableFuture<ByteBuffer> data) {
        CompletableFuture<ByteBuffer> counted = new CompletableFuture<>();
        data.whenComplete((buffer, failure) -> {
            if (failure == null) {
                streamStatistics.bytesRead(range.getLength());
                counted.complete(buffer);
            } else {
                counted.completeExceptionally(failure);
            }
        });
        range.setData(counted);
    }

    /**
     * Frees what this stream holds: the Rangefetch stream's block and its prefetches. Bytes already fetched stay
     * in the file system's shared cache (bounded by {@code cache.max-memory}) for any stream of the object.
     */
    @Override
    public synchronized void unbuffer() {
        SeekableS3InputStream stream = current;
        if (stream == null) {
            return;
        }
        unbufferedPosition = stream.getPos();
        retire(stream);
        current = null;
        streamStatistics.unbuffered();
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            SeekableS3InputStream stream = current;
            if (stream != null) {
                unbufferedPosition = stream.getPos();
                retire(stream);
                current = null;
            }
            binding.released();
            ioStatistics.publish(streamStatistics);
            binding.closed(ioStatistics);
        } finally {
            super.close();
        }
    }

    /** Whether the stream is open: not closed (an unbuffered stream is open). */
    boolean isOpen() {
        return !closed;
    }

    /** Frees the Rangefetch stream of a stream its caller abandoned without closing. Never throws. */
    void abandon() {
        SeekableS3InputStream stream = current;
        if (stream != null) {
            stream.close();
        }
        binding.released();
    }

    @Override
    public boolean hasCapability(String capability) {
        String probe = capability.toLowerCase(java.util.Locale.ROOT);
        return CAPABILITIES.contains(probe) || probe.equals(StreamCapabilities.IOSTATISTICS);
    }

    /** S3A's statistics of this stream with Rangefetch's counts ({@code rangefetch_*}), live. */
    @Override
    public IOStatistics getIOStatistics() {
        return ioStatistics;
    }

    /** What the Rangefetch streams behind this one have cost and served, over unbuffer calls. */
    synchronized StreamStatistics rangefetchStatistics() {
        SeekableS3InputStream stream = current;
        return stream == null ? retired : retired.plus(stream.statistics());
    }

    /** The open Rangefetch stream, reopened at the saved position after {@link #unbuffer()}. */
    private synchronized SeekableS3InputStream stream() throws IOException {
        checkNotClosed();
        SeekableS3InputStream stream = current;
        if (stream == null) {
            stream = factory.open(location, options);
            stream.seek(unbufferedPosition);
            current = stream;
        }
        return stream;
    }

    private void retire(SeekableS3InputStream stream) {
        if (options.etag().isEmpty()) {
            stream.etag()
                    .ifPresent(etag -> options = options.toBuilder().etag(etag).build());
        }
        retired = retired.plus(stream.statistics());
        stream.close();
    }

    private void checkNotClosed() throws IOException {
        if (closed) {
            throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + " " + uri);
        }
    }

    private void bytesRead(long bytes) {
        streamStatistics.bytesRead(bytes);
        if (fileSystemStatistics != null) {
            fileSystemStatistics.incrementBytesRead(bytes);
        }
    }

    /** Counts the failure and gives S3A's exception for a changed object; other failures as they are. */
    private IOException failed(IOException failure, String operation, long position) {
        streamStatistics.readException();
        if (failure instanceof ObjectChangedException changed) {
            RangefetchIOStatistics.versionMismatch(streamStatistics);
            return new RemoteFileChangedException(
                    uri,
                    operation,
                    changed.getMessage() + " (at position " + position + "; reopen the file to read the new version)",
                    changed);
        }
        return failure;
    }

    @Override
    public String toString() {
        return "RangefetchFSInputStream{" + uri + ", length=" + contentLength + ", position=" + getPos()
                + ", policy=" + inputPolicy + ", " + (closed ? "closed" : current == null ? "unbuffered" : "open")
                + "}";
    }
}
