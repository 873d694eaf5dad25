package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.plan.ReadRequest;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * One stream's reads into a caller's buffer, which the caller waits for: streaming reads, positioned reads
 * ({@code readFully} among them) and reads of the tail. Each runs on the version it pins ({@link ObjectVersion}), and
 * starts over on the new one when the object changed and the stream may move, or when a block it shared was lost.
 *
 * <p><b>Steps.</b> A streaming read tries the quiet path first ({@link StreamingState#readQuietly}: no plan, no
 * lock, no allocation). Then the version is pinned; when it was not known, the request that learned it may have
 * written the read's first bytes (or all of them) straight into the buffer, which are not read again. The rest is
 * read in {@link PlannedRead}s. A positioned read is also shown to the stride pattern ({@link Predictions}), and the
 * reads it predicts are prefetched once the read's own GETs are submitted, so that they never take a fetch slot
 * before it.
 *
 * <p><b>Threads.</b> Positioned reads and reads of the tail may run from many threads at once; streaming reads are
 * serialized by the stream (they share the {@link StreamingState}). Nothing here takes a lock; a read waits, with
 * no lock held, only for the version and for its own bytes.
 */
final class BufferReads {
    private static final int MAX_ATTEMPTS = 3;

    private final ObjectAddress address;
    private final ObjectVersion version;
    // Touched only by streaming reads, which the stream serializes.
    private final StreamingState streaming;
    private final StatisticsCounter statistics;
    private final Predictions predictions;
    private final PlannedRead.Collaborators planned;
    private final Supplier<ReadShape> shape;

    /**
     * @param planned what the reads' planned parts work with (they share the streaming state and predictions)
     * @param shape the stream's shape as it stands, read once per step
     */
    BufferReads(
            ObjectAddress address,
            ObjectVersion version,
            StreamingState streaming,
            StatisticsCounter statistics,
            Predictions predictions,
            PlannedRead.Collaborators planned,
            Supplier<ReadShape> shape) {
        this.address = requireNonNull(address, "address is null");
        this.version = requireNonNull(version, "version is null");
        this.streaming = requireNonNull(streaming, "streaming is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.predictions = requireNonNull(predictions, "predictions is null");
        this.planned = requireNonNull(planned, "planned is null");
        this.shape = requireNonNull(shape, "shape is null");
    }

    /** A streaming or positioned read (see {@link ObjectReader#read}). */
    int read(long position, byte[] buffer, int offset, int len, boolean streaming) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (streaming) {
            // The quiet path first, allocating nothing: a scan of 8 KiB reads spends most of its reads here. It
            // needs no start of its own: the streaming read that left the quiet block started on its version, so
            // no other read can have moved the stream off it (see ObjectVersion).
            PinnedVersion current = version.current();
            if (current != null) {
                int copied = this.streaming.readQuietly(current, position, buffer, offset, len, statistics);
                if (copied > 0) {
                    return copied;
                }
            }
        }
        FirstFetch.Shape learning = shape.get().firstFetch(position, len, false, ByteBuffer.wrap(buffer), offset);
        return withVersion(learning, (pinned, direct) -> {
            if (position >= pinned.length()) {
                return -1;
            }
            if (direct != null && direct.contains(position)) {
                // the request that learned the version wrote these bytes straight into the buffer
                int count = (int) Math.min(len, direct.end() - position);
                statistics.served(count, false);
                return count;
            }
            // a positioned readOn always submits, so its stride prefetch goes out there, after the read's own GETs
            return readOn(
                    pinned,
                    position,
                    buffer,
                    offset,
                    len,
                    streaming,
                    direct != null,
                    streaming ? Predictions.NOTHING : strideFetch(pinned, position, len));
        });
    }

    /** A positioned read of exactly {@code len} bytes (see {@link ObjectReader#readFully}). */
    void readFully(long position, byte[] buffer, int offset, int len) throws IOException {
        if (len == 0) {
            return;
        }
        FirstFetch.Shape learning = shape.get().firstFetch(position, len, false, ByteBuffer.wrap(buffer), offset);
        withVersion(learning, (pinned, direct) -> {
            if (position + len > pinned.length()) {
                throw new EOFException("Cannot read " + len + " bytes at " + position + ": past the end of " + address
                        + " (length " + pinned.length() + ")");
            }
            long from = position;
            if (direct != null && direct.contains(position)) {
                from = direct.end(); // the request that learned the version wrote these bytes already
                statistics.served(from - position, false);
            }
            Runnable strideFetch = strideFetch(pinned, position, len);
            while (from < position + len) {
                from += readOn(
                        pinned,
                        from,
                        buffer,
                        offset + (int) (from - position),
                        (int) (position + len - from),
                        false,
                        direct != null,
                        strideFetch);
            }
            strideFetch.run(); // the learning request may have written every byte: no readOn submitted
            return len;
        });
    }

    /** A read of the tail (see {@link ObjectReader#readTail}). */
    int readTail(byte[] buffer, int offset, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        FirstFetch.Shape learning = shape.get().firstFetch(-1, len, true, ByteBuffer.wrap(buffer), offset);
        return withVersion(learning, (pinned, direct) -> {
            int wanted = (int) Math.min(len, pinned.length());
            long position = pinned.length() - wanted;
            long end = pinned.length();
            if (direct != null) {
                statistics.served(direct.length(), false);
                end = direct.start(); // the learning request wrote the tail's last bytes into place
            }
            for (long cursor = position; cursor < end; ) {
                cursor += readOn(
                        pinned,
                        cursor,
                        buffer,
                        offset + (int) (cursor - position),
                        (int) (end - cursor),
                        false,
                        direct != null,
                        Predictions.NOTHING);
            }
            return wanted;
        });
    }

    /** A read of one pinned version: what it returns, knowing what its learning request wrote into its buffer. */
    private interface Attempt {
        int run(PinnedVersion pinned, ByteRange direct) throws IOException;
    }

    /**
     * Runs a read on the stream's version: again on the new version when the object changed and the stream may
     * move (see {@link ObjectVersion}), or when a block it shared was lost. Throws {@link ObjectChangedException}
     * when it may not.
     */
    private int withVersion(FirstFetch.Shape learning, Attempt attempt) throws IOException {
        PinnedVersion startedOn = null;
        for (int attempts = 1; ; attempts++) {
            ByteRange[] direct = new ByteRange[1];
            PinnedVersion pinned = version.pin(true, startedOn, learning, learned -> direct[0] = learned.direct());
            startedOn = pinned;
            try {
                return attempt.run(pinned, direct[0]);
            } catch (HttpStatusException e) {
                if (!e.isPreconditionFailed()) {
                    throw e;
                }
                version.onChanged(pinned, 1, true, true, e);
                streaming.reset();
                if (attempts >= MAX_ATTEMPTS) {
                    throw e;
                }
            } catch (BlockLostException e) {
                if (attempts >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Shows a positioned read to the stride pattern (see {@link Predictions#strideFetch}); returns what prefetches
     * the reads it predicts. A small object is read whole anyway.
     */
    private Runnable strideFetch(PinnedVersion pinned, long position, long len) {
        ReadShape reads = shape.get();
        if (reads.planner().isSmall(pinned.length())) {
            return Predictions.NOTHING;
        }
        return predictions.strideFetch(pinned, position, len, reads.hint(), reads.prefetchEnd());
    }

    /** @param afterSubmit runs once the read's own GETs are submitted (before it waits for them) */
    private int readOn(
            PinnedVersion pinned,
            long position,
            byte[] buffer,
            int offset,
            int len,
            boolean streamingRead,
            boolean missed,
            Runnable afterSubmit)
            throws IOException {
        if (streamingRead) {
            int copied = streaming.readQuietly(pinned, position, buffer, offset, len, statistics);
            if (copied > 0) {
                return copied;
            }
            predictions.streamingReadAt(position, streaming.sequential().nextExpected());
        }
        ReadShape reads = shape.get();
        // a ramp that wasted too much predicts nothing (a limit at the read) until the reader has read enough
        long prefetchLimit = !streamingRead
                ? reads.prefetchEnd()
                : predictions.allowed()
                        ? Math.min(reads.prefetchEnd(), reads.structureEnd().applyAsLong(position))
                        : position;
        ReadRequest read =
                new ReadRequest(position, len, pinned.length(), streamingRead, reads.hint(), false, prefetchLimit);
        return new PlannedRead(planned, pinned, read, reads.planner(), buffer, offset).run(missed, afterSubmit);
    }
}
