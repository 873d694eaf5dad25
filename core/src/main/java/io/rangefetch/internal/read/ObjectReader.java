package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.BucketGovernors;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.AdaptiveMinimum;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.WasteMemory;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.internal.time.TimeSource;
import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongUnaryOperator;

/**
 * Reads one object for one stream: what the stream's reads share (the version each pins, how they are shaped, what
 * their predictions wasted), and where each kind of read starts. A read that finds the object changed either starts
 * over on the new version or fails, by {@link ObjectVersion}'s one rule.
 *
 * <p><b>Where reads go.</b> Reads into the caller's buffer (streaming, positioned, the tail) are the stream's
 * {@link BufferReads}: the quiet path, pinning and starting over, then a {@link PlannedRead} each (the planner's
 * inputs, the plan, the copy). Vectored reads and prefetches (the ramp's aside: the planner makes those) are
 * {@link VectoredRead}s, started here. Every one of them gets hold of its bytes through the stream's
 * {@link ReadOrchestrator} (lock, look up, plan, claim, submit). What the predictions fetch ahead and waste is kept
 * by the stream's {@link Predictions}; how its format policy shaped its reads, by one {@link ReadShape}. What is left
 * here: wiring those once per stream, the open fetch, the vectored reads' version rule, and closing.
 *
 * <p><b>Threads.</b> Positioned and vectored reads may run from many threads at once; streaming reads are
 * serialized by the stream (they share the {@link StreamingState}). Fetches run on the scheduler's threads; the
 * calling thread waits only for the bytes it asked for, and never holds a lock while it waits. Locks: the
 * object's planning lock (the cache's, striped by object) is held only while planning and claiming; under it the
 * cache takes its own eviction lock, never the other way round. The monitors of the stride pattern, the waste
 * budget and the adaptive minimum are each held only inside their own methods, under no other lock.
 */
public final class ObjectReader implements AutoCloseable {
    private final ObjectAddress address;
    private final AccessIdentity identity;
    private final ObjectVersion version;
    private final StatisticsCounter statistics;
    private final PrefetchTracker prefetches = new PrefetchTracker();
    private final ReadPlanner factoryPlanner;
    private final BucketGovernors governors;
    private final OpenStreams openStreams;
    private final VectoredRead.Collaborators vectored;
    private final RangeCoalescer coalescer;
    private final Predictions predictions;
    private final BufferReads bufferReads;
    // Touched only by streaming reads, which the stream serializes.
    private final StreamingState streaming;
    private final AtomicBoolean closed = new AtomicBoolean();
    // Replaced by shapeReads before the stream is handed out, as its format policy asks.
    private volatile ReadShape shape;

    /**
     * What every stream of one factory shares, each part used by the stream or by what it builds: the cache, the
     * scheduler and GET path its GETs go through ({@code fetching}), the metadata cache its version is remembered in,
     * the ticker its read deadline is measured on, the planners, what closed streams' predictions wasted, the
     * throttle governors, and the count of open streams sharing the connections.
     */
    record Shared(
            Fetching fetching,
            MetadataCache metadata,
            TimeSource time,
            Duration readDeadline,
            ReadPlanner planner,
            RangeCoalescer coalescer,
            WasteMemory waste,
            BucketGovernors governors,
            OpenStreams openStreams) {

        Shared {
            requireNonNull(fetching, "fetching is null");
            requireNonNull(metadata, "metadata is null");
            requireNonNull(time, "time is null");
            requireNonNull(readDeadline, "readDeadline is null");
            requireNonNull(planner, "planner is null");
            requireNonNull(coalescer, "coalescer is null");
            requireNonNull(waste, "waste is null");
            requireNonNull(governors, "governors is null");
            requireNonNull(openStreams, "openStreams is null");
        }
    }

    /**
     * @param identity who the stream reads as (its credentials and SSE-C key): it is served only what this identity
     *     fetched, and its requests are signed with the credentials {@code address} names
     * @param knownLength the length if known, else -1
     * @param knownEtag the ETag if known, else {@code null}
     * @param etagPinnedByCaller whether the caller named the ETag (then a change is always an error)
     */
    ObjectReader(
            Shared shared,
            ObjectAddress address,
            AccessIdentity identity,
            long knownLength,
            String knownEtag,
            boolean etagPinnedByCaller,
            AccessHint hint,
            StatisticsCounter statistics) {
        requireNonNull(shared, "shared is null");
        this.address = requireNonNull(address, "address is null");
        this.identity = requireNonNull(identity, "identity is null");
        requireNonNull(hint, "hint is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.factoryPlanner = shared.planner();
        this.coalescer = shared.coalescer();
        this.governors = shared.governors();
        this.openStreams = shared.openStreams();
        BlockCache cache = shared.fetching().cache();
        this.version = new ObjectVersion(
                shared.fetching(),
                shared.metadata(),
                address,
                identity,
                knownLength,
                knownEtag,
                etagPinnedByCaller,
                statistics);
        ReadOrchestrator orchestrator = new ReadOrchestrator(
                shared.fetching(),
                shared.time(),
                shared.readDeadline(),
                address,
                version::objectId,
                statistics,
                prefetches);
        this.vectored = new VectoredRead.Collaborators(
                orchestrator, cache, shared.fetching().scheduler(), openStreams::partsAffordable, this::changedUnder);
        this.streaming = new StreamingState(cache);
        this.predictions =
                new Predictions(address, factoryPlanner.settings(), shared.waste(), statistics, this::prefetchOn);
        this.shape = ReadShape.unshaped(
                hint, predictions.wholeReadsPay() ? factoryPlanner : factoryPlanner.withSmallObjectSizeAtMost(0));
        PlannedRead.Collaborators planned = new PlannedRead.Collaborators(
                address,
                orchestrator,
                cache,
                streaming,
                statistics,
                // told of every planned read (from many threads for positioned reads), never under the planning lock
                new AdaptiveMinimum(factoryPlanner.settings().minRequestSize()),
                openStreams::partsAffordable,
                predictions);
        this.bufferReads = new BufferReads(address, version, streaming, statistics, predictions, planned, () -> shape);
        openStreams.opened();
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
                factoryPlanner.withSmallObjectSizeAtMost(predictions.wholeReadsPay() ? smallObjectSize : 0);
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
        return governors.limit(address.bucket());
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
                prefetch(List.of(range));
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
    public int read(long position, byte[] buffer, int offset, int len, boolean streaming) throws IOException {
        return bufferReads.read(position, buffer, offset, len, streaming);
    }

    /**
     * Reads exactly {@code len} bytes at {@code position}, or throws {@link EOFException} (before fetching
     * anything) when they are not all inside the version the read starts on: the end of file is that version's.
     */
    public void readFully(long position, byte[] buffer, int offset, int len) throws IOException {
        bufferReads.readFully(position, buffer, offset, len);
    }

    /** Reads the last {@code min(len, length)} bytes into {@code buffer}; returns how many. */
    public int readTail(byte[] buffer, int offset, int len) throws IOException {
        return bufferReads.readTail(buffer, offset, len);
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
        new VectoredRead(vectored, shape.vectoredPlanner(coalescer), pinned, statistics, ranges, null, forReader)
                .start();
    }

    /**
     * Brings {@code ranges} into the cache at prefetch priority, coalesced as a vectored read would be, without
     * waiting; they are stopped when this stream closes unless another reader waits for them. Does nothing
     * until the stream knows the object's version.
     */
    public void prefetch(List<ByteRange> ranges) {
        PinnedVersion pinned = version.current();
        if (pinned != null) {
            prefetchOn(pinned, ranges);
        }
    }

    private void prefetchOn(PinnedVersion pinned, List<ByteRange> ranges) {
        if (!pinned.isEmpty()) {
            new VectoredRead(vectored, shape.vectoredPlanner(coalescer), pinned, statistics, List.of(), ranges, false)
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
                openStreams.closed(); // whatever stopping threw: its share of the connections is free
            }
        }
        if (!first) {
            return;
        }
        predictions.closed(streaming.sequential().nextExpected(), version::knownLength);
    }

    /** Bytes the stream's format policy prefetched and the reader left unread: its predictions' waste too. */
    public void predictionWasted(long bytes) {
        predictions.wasted(bytes);
    }

    /** Whether predictions (the ramp, the stride, the format policy's) may fetch ahead, as the waste bound stands. */
    public boolean predictionsAllowed() {
        return predictions.allowed();
    }
}
