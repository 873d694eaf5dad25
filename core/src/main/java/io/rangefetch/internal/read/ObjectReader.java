package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.StreamClosedEvent;
import io.rangefetch.internal.events.StreamOpenedEvent;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.AdaptiveMinimum;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.ReadRequest;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;

/**
 * Reads one object for one stream: the one object a stream's reads start from and share (the version each pins,
 * how they are shaped, what their predictions wasted), and what each kind of read is.
 *
 * <p><b>Where reads go.</b> Reads into the caller's buffer (streaming, positioned, the tail) are here, through to
 * the plan: a streaming read tries the quiet path first ({@link StreamingState#readQuietly}: no plan, no lock, no
 * allocation); then the version is pinned ({@link ObjectVersion}); when it was not known, the request that learned
 * it may have written the read's first bytes (or all of them) straight into the buffer, which are not read again.
 * The rest is read in {@link PlannedRead}s. A positioned read is also shown to the stride pattern
 * ({@link Predictions}), and the reads it predicts are prefetched once the read's own GETs are submitted, so that
 * they never take a fetch slot before it. Vectored reads and prefetches (the ramp's aside: the planner makes those)
 * are {@link VectoredRead}s, started here. Both kinds are {@link ObjectRead}s: one template (look up, plan, claim,
 * submit) with their steps as their own methods; they ask this reader for the stream's parts.
 *
 * <p><b>Versions.</b> A read that finds the object changed starts over on the new version when the stream may move,
 * or fails with {@link ObjectChangedException}, by {@link ObjectVersion}'s one rule; a read whose shared block was
 * lost plans again. Each read tries at most {@value #MAX_ATTEMPTS} times.
 *
 * <p><b>Threads.</b> Positioned and vectored reads may run from many threads at once; streaming reads are
 * serialized by the stream (they share the {@link StreamingState}). Fetches run on the scheduler's threads; the
 * calling thread waits only for the bytes it asked for, and never holds a lock while it waits. Locks: the
 * object's planning lock (the cache's, striped by object) is held only while planning and claiming; under it the
 * cache takes its own eviction lock, never the other way round. The monitors of the stride pattern, the waste
 * budget and the adaptive minimum are each held only inside their own methods, under no other lock.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} opens one per stream, and
 * {@code io.rangefetch.SeekableS3InputStream} and {@code io.rangefetch.StreamFormatView} read through it.
 */
public final class ObjectReader implements AutoCloseable {
    private static final int MAX_ATTEMPTS = 3;

    private final ReadEngine engine;
    private final ObjectAddress address;
    private final AccessIdentity identity;
    private final ObjectVersion version;
    private final StatisticsCounter statistics;
    private final PrefetchTracker prefetches = new PrefetchTracker();
    private final Predictions predictions;
    // told of every planned read (from many threads for positioned reads), never under the planning lock
    private final AdaptiveMinimum demandMinimum;
    // Touched only by streaming reads, which the stream serializes.
    private final StreamingState streaming;
    private static final AtomicLong NEXT_ID = new AtomicLong();

    private final AtomicBoolean closed = new AtomicBoolean();
    // the stream's number in this JVM, for its events
    private final long id = NEXT_ID.incrementAndGet();
    // the stream's life, from open to close: committed when it closes, while a recording wants it
    private final StreamClosedEvent life = new StreamClosedEvent();
    // Replaced by shapeReads before the stream is handed out, as its format policy asks.
    private volatile ReadShape shape;

    /**
     * @param identity who the stream reads as (its credentials and SSE-C key): it is served only what this identity
     *     fetched, and its requests are signed with the credentials {@code address} names
     * @param knownLength the length if known, else -1
     * @param knownEtag the ETag if known, else {@code null}
     * @param etagPinnedByCaller whether the caller named the ETag (then a change is always an error)
     */
    ObjectReader(
            ReadEngine engine,
            ObjectAddress address,
            AccessIdentity identity,
            long knownLength,
            String knownEtag,
            boolean etagPinnedByCaller,
            AccessHint hint,
            StatisticsCounter statistics) {
        this.engine = requireNonNull(engine, "engine is null");
        this.address = requireNonNull(address, "address is null");
        this.identity = requireNonNull(identity, "identity is null");
        requireNonNull(hint, "hint is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.version = new ObjectVersion(
                id, engine, address, identity, knownLength, knownEtag, etagPinnedByCaller, statistics);
        this.streaming = new StreamingState(engine.cache());
        ReadPlanner factoryPlanner = engine.planner();
        this.predictions = new Predictions(
                address,
                factoryPlanner.settings(),
                engine.waste(),
                statistics,
                (pinned, ranges) -> prefetchOn(pinned, ranges, FetchCause.STRIDE_PREFETCH));
        this.demandMinimum = new AdaptiveMinimum(factoryPlanner.settings().minRequestSize());
        this.shape = ReadShape.unshaped(
                hint, predictions.wholeReadsPay() ? factoryPlanner : factoryPlanner.withSmallObjectSizeAtMost(0));
        engine.openStreams().opened();
        life.begin();
        StreamOpenedEvent opened = new StreamOpenedEvent();
        if (opened.shouldCommit()) {
            opened.stream = id;
            opened.bucket = address.bucket();
            opened.key = address.key();
            opened.length = knownLength;
            opened.commit();
        }
    }

    /** The stream's number in this JVM, as its events name it. */
    public long id() {
        return id;
    }

    /**
     * How reads are planned, as the stream's format policy decided: the access pattern, the offset sequential
     * prefetch stops at, where the structure a streaming read is in ends (its prefetch stops there too), and the
     * largest object read whole (at most {@code read.small-object-size}). Called before the stream is handed out.
     */
    public void shapeReads(
            AccessHint accessHint, long prefetchLimit, LongUnaryOperator structureLimit, long smallObjectSize) {
        requireNonNull(accessHint, "accessHint is null");
        requireNonNull(structureLimit, "structureLimit is null");
        ReadPlanner planner =
                engine.planner().withSmallObjectSizeAtMost(predictions.wholeReadsPay() ? smallObjectSize : 0);
        this.shape = new ReadShape(accessHint, prefetchLimit, structureLimit, planner);
        predictions.readsWholeUpTo(smallObjectSize);
    }

    public ObjectAddress address() {
        return address;
    }

    /** Who the stream reads as: what it is served was fetched under this identity. */
    public AccessIdentity identity() {
        return identity;
    }

    /** The length if known, else -1; never sends a request. */
    public long knownLength() {
        return version.knownLength();
    }

    /** The ETag this stream is pinned to (or the caller gave), else {@code null}; never sends a request. */
    public String knownEtag() {
        return version.knownEtag();
    }

    /** The current limit of the throttle governor of this object's bucket; -1 when none limits it. */
    public int throttleLimit() {
        return engine.governors().limit(address.bucket());
    }

    /** The length, sending a HEAD only when nothing has told it yet; it starts the version like a read. */
    public long length() throws IOException {
        return version.lengthOrHead();
    }

    /**
     * Starts fetching, without waiting, the object's tail a format policy wants as the stream opens: its last
     * {@code len} bytes (where Parquet and ORC keep their footers). When the version is not known yet this is the
     * request that learns it, run in a scheduler slot; reads that would learn the version wait for it instead of
     * sending their own. When it is known, the bytes are prefetched (a small object whole, in parallel parts). An
     * empty object fetches nothing. Then {@code opened} runs, unless the fetch failed.
     */
    public void startOpenTailFetch(long len, Runnable opened) {
        ReadShape reads = shape;
        PinnedVersion known = version.current();
        if (known != null) {
            ByteRange range = known.isEmpty() ? null : reads.planner().openPrefetch(true, 0, len, known.length());
            if (range != null) {
                prefetch(List.of(range), FetchCause.FOOTER);
            }
            opened.run();
            return;
        }
        int size = (int) Math.min(Integer.MAX_VALUE, Math.max(1, len));
        version.startOpenFetch(reads.firstFetch(-1, size, true, null, 0), opened);
    }

    /**
     * Reads up to {@code len} bytes at {@code position}: at least one unless {@code len} is 0, and all of them
     * when {@code streaming} is false. Returns -1 at or past the end.
     */
    public int read(long position, byte[] buffer, int offset, int len, boolean streamingRead) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (streamingRead) {
            // The quiet path first, allocating nothing: a scan of 8 KiB reads spends most of its reads here. It
            // needs no start of its own: the streaming read that left the quiet block started on its version, so
            // no other read can have moved the stream off it (see ObjectVersion).
            PinnedVersion current = version.current();
            if (current != null) {
                int copied = streaming.readQuietly(current, position, buffer, offset, len, statistics);
                if (copied > 0) {
                    return copied;
                }
            }
        }
        FirstFetch.Shape learning = shape.firstFetch(position, len, false, ByteBuffer.wrap(buffer), offset);
        return withVersion(learning, (pinned, direct, learnedHere) -> {
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
                    streamingRead,
                    learnedHere,
                    streamingRead ? Predictions.NOTHING : strideFetch(pinned, position, len));
        });
    }

    /**
     * Reads exactly {@code len} bytes at {@code position}, or throws {@link EOFException} (before fetching
     * anything) when they are not all inside the version the read starts on: the end of file is that version's.
     */
    public void readFully(long position, byte[] buffer, int offset, int len) throws IOException {
        if (len == 0) {
            return;
        }
        FirstFetch.Shape learning = shape.firstFetch(position, len, false, ByteBuffer.wrap(buffer), offset);
        withVersion(learning, (pinned, direct, learnedHere) -> {
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
                        learnedHere,
                        strideFetch);
            }
            strideFetch.run(); // the learning request may have written every byte: no readOn submitted
            return len;
        });
    }

    /** Reads the last {@code min(len, length)} bytes into {@code buffer}; returns how many. */
    public int readTail(byte[] buffer, int offset, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        FirstFetch.Shape learning = shape.firstFetch(-1, len, true, ByteBuffer.wrap(buffer), offset);
        return withVersion(learning, (pinned, direct, learnedHere) -> {
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
                        learnedHere,
                        Predictions.NOTHING);
            }
            return wanted;
        });
    }

    /**
     * A read of one pinned version: what it returns, knowing what its learning request wrote into its buffer
     * ({@code direct}) and whether it sent that request ({@code learnedHere}: then the read was not served from
     * the cache, whatever the request left there).
     */
    private interface Attempt {
        int run(PinnedVersion pinned, ByteRange direct, boolean learnedHere) throws IOException;
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
            boolean[] learnedHere = new boolean[1];
            PinnedVersion pinned = version.pin(true, startedOn, learning, learned -> {
                direct[0] = learned.direct();
                learnedHere[0] = true;
            });
            startedOn = pinned;
            try {
                return attempt.run(pinned, direct[0], learnedHere[0]);
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
        ReadShape reads = shape;
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
        ReadShape reads = shape;
        // a ramp that wasted too much predicts nothing (a limit at the read) until the reader has read enough
        long prefetchLimit = !streamingRead
                ? reads.prefetchEnd()
                : predictions.allowed()
                        ? Math.min(reads.prefetchEnd(), reads.structureEnd().applyAsLong(position))
                        : position;
        ReadRequest read =
                new ReadRequest(position, len, pinned.length(), streamingRead, reads.hint(), false, prefetchLimit);
        return new PlannedRead(this, pinned, read, reads.planner(), buffer, offset).run(missed, afterSubmit);
    }

    /**
     * Starts a vectored read of the stream's version; returns once its GETs are queued. When the version is not
     * known, the one GET that learns it is sent first (for the bytes at {@code learnAt}) and waited for.
     * {@code ranges} then gets the object's length, checks the caller's ranges against it and allocates their
     * buffers.
     */
    public void readVectored(long learnAt, int learnLength, VectoredTargets ranges) throws IOException {
        FirstFetch.Shape learning = shape.firstFetch(Math.max(0, learnAt), Math.max(1, learnLength), false, null, 0);
        PinnedVersion pinned = version.pin(true, null, learning, null);
        start(pinned, ranges.within(pinned.length()), true);
    }

    /**
     * A vectored read for the stream's format policy (a footer it parses): like a reader's, but its bytes are the
     * policy's, not the reader's, so they neither count as served nor start the version (see
     * {@link ObjectVersion}). Never waits: does nothing but fail its ranges when the version is not known.
     */
    public void readVectoredForFormat(VectoredTargets ranges) throws IOException {
        PinnedVersion pinned = version.pin(false, null, null, null);
        if (pinned == null) {
            throw new IllegalStateException("The version of " + address + " is not known yet");
        }
        start(pinned, ranges.within(pinned.length()), false);
    }

    /** The ranges of a vectored read, checked and allocated once the object's length is known. */
    @FunctionalInterface
    public interface VectoredTargets {
        List<VectoredRange> within(long objectLength) throws IOException;
    }

    private void start(PinnedVersion pinned, List<VectoredRange> ranges, boolean forReader) {
        if (pinned.isEmpty()) {
            // an empty object has no ETag to key blocks by and no byte to fetch: its length let only empty ranges in
            for (VectoredRange range : ranges) {
                if (range.length() != 0) {
                    throw new IllegalStateException("A range of " + range.length() + " bytes of empty " + address);
                }
                range.complete();
            }
            return;
        }
        new VectoredRead(
                        this,
                        shape.vectoredPlanner(engine.coalescer()),
                        pinned,
                        ranges,
                        null,
                        forReader,
                        forReader ? FetchCause.VECTORED : FetchCause.FOOTER)
                .start();
    }

    /**
     * Brings {@code ranges} into the cache at prefetch priority, coalesced as a vectored read would be, without
     * waiting; they are stopped when this stream closes unless another reader waits for them. Does nothing
     * until the stream knows the object's version. {@code cause} says who predicted them.
     */
    public void prefetch(List<ByteRange> ranges, FetchCause cause) {
        PinnedVersion pinned = version.current();
        if (pinned != null) {
            prefetchOn(pinned, ranges, cause);
        }
    }

    private void prefetchOn(PinnedVersion pinned, List<ByteRange> ranges, FetchCause cause) {
        if (!pinned.isEmpty()) {
            new VectoredRead(this, shape.vectoredPlanner(engine.coalescer()), pinned, List.of(), ranges, false, cause)
                    .start();
        }
    }

    /** A vectored read's GET found the object changed: what its ranges fail with, and whether the stream moves. */
    Throwable changedUnder(PinnedVersion pinned, boolean forReader, HttpStatusException failure) {
        try {
            version.onChanged(pinned, forReader ? 1 : 0, !forReader, false, failure);
        } catch (IOException e) {
            return e;
        }
        // the stream is on another version now: a policy's read just fails; a reader's range is of the old one
        return forReader
                ? new ObjectChangedException(address.bucket(), address.key(), pinned.etag(), null, failure)
                : failure;
    }

    /**
     * Lets go of the block streaming reads were served from. Call it only where streaming reads are
     * serialized: a read may be copying from that block.
     */
    public void releaseStreamingState() {
        streaming.replaceQuiet(null);
    }

    /**
     * Stops this stream's open fetch and prefetches that no other reader waits for: queued ones never start,
     * running ones are aborted. A prefetch another reader joined runs on for that reader.
     */
    @Override
    public void close() {
        boolean first = closed.compareAndSet(false, true);
        try {
            version.stopLearning();
            prefetches.close();
        } finally {
            if (first) {
                engine.openStreams().closed(); // whatever stopping threw: its share of the connections is free
            }
        }
        if (!first) {
            return;
        }
        predictions.closed(streaming.sequential().nextExpected(), version::knownLength);
        life.end();
        if (life.shouldCommit()) {
            life.stream = id;
            life.bucket = address.bucket();
            life.key = address.key();
            life.bytesRead = statistics.bytesServed();
            life.reads = statistics.cacheHits() + statistics.cacheMisses();
            life.cacheHits = statistics.cacheHits();
            life.commit();
        }
    }

    /** Bytes the stream's format policy prefetched and the reader left unread: its predictions' waste too. */
    public void predictionWasted(long bytes) {
        predictions.wasted(bytes);
    }

    /** Whether predictions (the ramp, the stride, the format policy's) may fetch ahead, as the waste bound stands. */
    public boolean predictionsAllowed() {
        return predictions.allowed();
    }

    // What this stream's reads (ObjectRead and its variants) ask their stream for.

    ReadEngine engine() {
        return engine;
    }

    StatisticsCounter statistics() {
        return statistics;
    }

    /** The stream's prefetches, stopped when it closes. */
    PrefetchTracker prefetches() {
        return prefetches;
    }

    /** The cache's key of a pinned version of the object, as this stream's identity reads it. */
    ObjectId objectId(PinnedVersion pinned) {
        return version.objectId(pinned);
    }

    /** Touched only by streaming reads, which the stream serializes. */
    StreamingState streaming() {
        return streaming;
    }

    Predictions predictions() {
        return predictions;
    }

    /** The smallest demand request worth sending, as this stream's reads have padded and used. */
    AdaptiveMinimum demandMinimum() {
        return demandMinimum;
    }

    /** How many parallel parts (of at most {@code cap}) a request may have now, the open streams considered. */
    int partsAffordable(int cap) {
        return engine.openStreams().partsAffordable(cap);
    }
}
