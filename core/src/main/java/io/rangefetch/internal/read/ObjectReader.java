package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectAddress;
import io.rangefetch.client.PreconditionFailedException;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.BucketGovernors;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.AdaptiveMinimum;
import io.rangefetch.internal.plan.FetchPlan;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlan;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.ReadRequest;
import io.rangefetch.internal.plan.SequentialState;
import io.rangefetch.internal.plan.StridePattern;
import io.rangefetch.internal.plan.VectoredPlanner;
import io.rangefetch.internal.plan.WasteBudget;
import io.rangefetch.internal.plan.WasteMemory;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.internal.time.TimeSource;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongUnaryOperator;

/**
 * Reads one object for one stream: pins the version each read reads ({@link ObjectVersion}), plans it, and
 * acquires and copies its bytes ({@link Acquisition}). A read that finds the object changed either starts over
 * on the new version or fails, by {@link ObjectVersion}'s one rule.
 *
 * <p><b>Acquiring.</b> Every read and prefetch gets hold of its bytes through the stream's {@link ReadOrchestrator}
 * (lock, look up, plan, claim, submit); what is left here is each kind of read's own part: pinning the version,
 * the streaming state, the planner's inputs, copying out and the predictions' accounting.
 *
 * <p><b>Size.</b> This file is past 400 lines: it holds one stream's reading rules (the quiet path, the ramp's and
 * the stride's predictions and their waste, the adaptive minimum, the open fetch), which share the stream's state.
 * Moving the copy of a planned read ({@link PlannedRead} and {@code copy}) and the predictions' accounting into
 * classes of their own is the next step; it was left out of the orchestration change to keep that one reviewable.
 *
 * <p><b>Threads.</b> Positioned and vectored reads may run from many threads at once; streaming reads are
 * serialized by the stream (they share the {@link StreamingState}). Fetches run on the scheduler's threads; the
 * calling thread waits only for the bytes it asked for, and never holds a lock while it waits. Locks: the
 * object's planning lock (the cache's, striped by object) is held only while planning and claiming; under it the
 * cache takes its own eviction lock, never the other way round. The stride pattern's monitor is held only while it
 * observes a read, and the adaptive minimum's only inside its own methods, each under no other lock.
 *
 * <p><b>Positioned reads that stride.</b> Positioned reads fetch only what they need, but a run of them at one
 * stride ({@link StridePattern}) has its predicted reads prefetched, submitted after the read's own GETs so that
 * they never take a fetch slot before it.
 *
 * <p><b>Demand requests adapt.</b> A read's own requests are grown to this stream's {@link AdaptiveMinimum}, which
 * shrinks when the stream leaves the padding unread and grows back when it reads it. Only demand requests of
 * planned reads: the first request, prefetches, vectored reads, format policies' fetches and small objects read
 * whole keep {@code read.min-request-size}.
 *
 * <p><b>Predictions answer for their waste.</b> What the sequential ramp fetched ahead and the reader then jumped
 * away from, the stride's predicted reads a reader broke off from (or closed before), and what the format policy
 * prefetched and the reader left unread ({@link #predictionWasted}) count against this stream's {@link WasteBudget};
 * past it, none predicts until the reader has read enough. A stream starts with what
 * the last stream of its file (or table) wasted past its bound, and its close reports its own ({@link
 * WasteMemory}), with how much of a small object it read: a table whose small objects are read a little each stops
 * having them read whole. A small object read whole is cut into as many parts as idle connections pay for.
 */
public final class ObjectReader implements AutoCloseable {
    private static final int MAX_ATTEMPTS = 3;

    private final ObjectAddress address;
    private final ObjectVersion version;
    private final StatisticsCounter statistics;
    private final PrefetchTracker prefetches = new PrefetchTracker();
    private final ReadPlanner factoryPlanner;
    private final WasteMemory wasteMemory;
    private final BucketGovernors governors;
    private final OpenStreams openStreams;
    private final BlockCache cache;
    private final ReadOrchestrator orchestrator;
    private final VectoredRead.Collaborators vectored;
    private final RangeCoalescer coalescer;
    private final StridePattern stridePattern;
    // Told of every planned read (from many threads for positioned reads), never under the planning lock.
    private final AdaptiveMinimum demandMinimum;
    // What this stream's predictions (the sequential ramp, the stride) left behind, and whether they may go on.
    private final WasteBudget waste;
    // Whether reading this table's small objects whole has paid lately (the factory's WasteMemory, at open).
    private final boolean wholeReadsPay;
    // The largest object this stream's rules read whole, before the table's history: what its close reports on.
    private volatile long wholeReadSize;
    // Touched only by streaming reads, which the stream serializes.
    private final StreamingState streaming;
    // Where the sequential ramp's prefetches of this stream reach; written only by streaming reads.
    private volatile long rampFetchedTo;
    private final AtomicBoolean closed = new AtomicBoolean();
    // Set by shapeReads before the stream is handed out, as its format policy asks.
    private volatile AccessHint hint;
    private volatile long prefetchEnd = Long.MAX_VALUE;
    private static final LongUnaryOperator NO_STRUCTURE = position -> Long.MAX_VALUE;
    // Where the format's structure holding a position ends: a streaming read's prefetch stops there too.
    private volatile LongUnaryOperator structureEnd = NO_STRUCTURE;
    // The factory's planner, or one reading fewer objects whole, as the stream's format policy decided.
    private volatile ReadPlanner planner;

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
     * @param knownLength the length if known, else -1
     * @param knownEtag the ETag if known, else {@code null}
     * @param etagPinnedByCaller whether the caller named the ETag (then a change is always an error)
     */
    ObjectReader(
            Shared shared,
            ObjectAddress address,
            long knownLength,
            String knownEtag,
            boolean etagPinnedByCaller,
            AccessHint hint,
            StatisticsCounter statistics) {
        requireNonNull(shared, "shared is null");
        this.address = requireNonNull(address, "address is null");
        this.hint = requireNonNull(hint, "hint is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.factoryPlanner = shared.planner();
        this.coalescer = shared.coalescer();
        this.wasteMemory = shared.waste();
        this.governors = shared.governors();
        this.openStreams = shared.openStreams();
        this.cache = shared.fetching().cache();
        this.version = new ObjectVersion(
                shared.fetching(), shared.metadata(), address, knownLength, knownEtag, etagPinnedByCaller, statistics);
        this.orchestrator = new ReadOrchestrator(
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
        this.waste = new WasteBudget(
                factoryPlanner.settings().prefetchInitialSize(), wasteMemory.carried(address.bucket(), address.key()));
        this.wholeReadsPay = wasteMemory.readsWhole(address.bucket(), address.key());
        this.wholeReadSize = factoryPlanner.settings().smallObjectSize();
        this.planner = wholeReadsPay ? factoryPlanner : factoryPlanner.withSmallObjectSizeAtMost(0);
        this.stridePattern = new StridePattern(factoryPlanner.settings());
        this.demandMinimum = new AdaptiveMinimum(factoryPlanner.settings().minRequestSize());
        openStreams.opened();
    }

    /**
     * How reads are planned, as the stream's format policy decided: the access pattern, the offset sequential
     * prefetch stops at, where the structure a streaming read is in ends (its prefetch stops there too), and the
     * largest object read whole (at most {@code read.small-object-size}). Called before the stream is handed out.
     */
    public void shapeReads(
            AccessHint accessHint, long prefetchLimit, LongUnaryOperator structureLimit, long smallObjectSize) {
        this.hint = requireNonNull(accessHint, "accessHint is null");
        this.prefetchEnd = prefetchLimit;
        this.structureEnd = requireNonNull(structureLimit, "structureLimit is null");
        this.wholeReadSize = smallObjectSize;
        this.planner = factoryPlanner.withSmallObjectSizeAtMost(wholeReadsPay ? smallObjectSize : 0);
    }

    public ObjectAddress address() {
        return address;
    }

    /** The length if known, else -1; never sends a request. */
    public long knownLength() {
        return version.knownLength();
    }

    /** The ETag this stream is pinned to (or the caller gave), else {@code null}; never sends a request. */
    public String knownEtag() {
        return version.knownEtag();
    }

    /** The length, sending a HEAD only when nothing has told it yet; it starts the version like a read. */
    /** The current limit of the throttle governor of this object's bucket; -1 when none limits it. */
    public int throttleLimit() {
        return governors.limit(address.bucket());
    }

    public long length() throws IOException {
        return version.lengthOrHead();
    }

    /**
     * Starts fetching, without waiting, what a format policy wants as the stream opens: the last {@code len}
     * bytes ({@code tail}), or {@code len} bytes from {@code start}. When the version is not known yet this is the
     * request that learns it, run in a scheduler slot; reads that would learn the version wait for it instead of
     * sending their own. When it is known, the bytes are prefetched (a small object whole, in parallel parts). An
     * empty object fetches nothing. Then {@code opened} runs, unless the fetch failed.
     */
    public void startOpenFetch(boolean tail, long start, long len, Runnable opened) {
        PinnedVersion known = version.current();
        if (known != null) {
            long objectLength = known.length();
            if (objectLength > 0) {
                // a tail reaches the end, so is taken as asked; a range is never smaller than the minimum request
                long size = tail ? len : Math.max(len, planner.settings().minRequestSize());
                ByteRange range = planner.isSmall(objectLength)
                        ? new ByteRange(0, objectLength)
                        : tail
                                ? new ByteRange(Math.max(0, objectLength - size), objectLength)
                                : start < objectLength
                                        ? new ByteRange(start, Math.min(objectLength, start + size))
                                        : null;
                if (range != null) {
                    prefetch(List.of(range));
                }
            }
            opened.run();
            return;
        }
        int size = (int) Math.min(Integer.MAX_VALUE, Math.max(1, len));
        version.startOpenFetch(
                new FirstFetch.Shape(tail ? -1 : start, size, tail, hint, prefetchEnd, planner, null, 0), opened);
    }

    /**
     * Reads up to {@code len} bytes at {@code position}: at least one unless {@code len} is 0, and all of them
     * when {@code streaming} is false. Returns -1 at or past the end.
     */
    public int read(long position, byte[] buffer, int offset, int len, boolean streaming) throws IOException {
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
        FirstFetch.Shape shape =
                new FirstFetch.Shape(position, len, false, hint, prefetchEnd, planner, ByteBuffer.wrap(buffer), offset);
        return withVersion(shape, (pinned, direct) -> {
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
                    streaming ? NOTHING : strideFetch(pinned, position, len));
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
        FirstFetch.Shape shape =
                new FirstFetch.Shape(position, len, false, hint, prefetchEnd, planner, ByteBuffer.wrap(buffer), offset);
        withVersion(shape, (pinned, direct) -> {
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

    /** Reads the last {@code min(len, length)} bytes into {@code buffer}; returns how many. */
    public int readTail(byte[] buffer, int offset, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        FirstFetch.Shape shape =
                new FirstFetch.Shape(-1, len, true, hint, prefetchEnd, planner, ByteBuffer.wrap(buffer), offset);
        return withVersion(shape, (pinned, direct) -> {
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
                        NOTHING);
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
     * move (see {@link ObjectVersion}), or when a block it shared was lost. Throws {@link VersionChangedException}
     * when it may not.
     */
    private int withVersion(FirstFetch.Shape shape, Attempt attempt) throws IOException {
        PinnedVersion startedOn = null;
        for (int attempts = 1; ; attempts++) {
            ByteRange[] direct = new ByteRange[1];
            PinnedVersion pinned = version.pin(true, startedOn, shape, learned -> direct[0] = learned.direct());
            startedOn = pinned;
            try {
                return attempt.run(pinned, direct[0]);
            } catch (PreconditionFailedException e) {
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
     * Starts a vectored read of the stream's version; returns once its GETs are queued. When the version is not
     * known, the one GET that learns it is sent first (for the bytes at {@code learnAt}) and waited for.
     * {@code ranges} then gets the object's length, checks the caller's ranges against it and allocates their
     * buffers.
     */
    public void readVectored(long learnAt, int learnLength, VectoredTargets ranges) throws IOException {
        startVectored(learnAt, learnLength, ranges, true);
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

    private void startVectored(long learnAt, int learnLength, VectoredTargets ranges, boolean forReader)
            throws IOException {
        FirstFetch.Shape shape = new FirstFetch.Shape(
                Math.max(0, learnAt), Math.max(1, learnLength), false, hint, prefetchEnd, planner, null, 0);
        PinnedVersion pinned = version.pin(forReader, null, shape, null);
        start(pinned, ranges.within(pinned.length()), forReader);
    }

    private void start(PinnedVersion pinned, List<VectoredRange> ranges, boolean forReader) {
        new VectoredRead(vectored, vectoredPlanner(), pinned, statistics, ranges, null, forReader).start();
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
            new VectoredRead(vectored, vectoredPlanner(), pinned, statistics, List.of(), ranges, false).start();
        }
    }

    private static final Runnable NOTHING = () -> {};

    /**
     * Shows a positioned read to the stride pattern; returns what prefetches the reads it predicts, on the read's
     * version, the first time it runs (nothing when it predicts none). A small object is read whole anyway.
     */
    private Runnable strideFetch(PinnedVersion pinned, long position, long len) {
        if (planner.isSmall(pinned.length())) {
            return NOTHING;
        }
        // backed off, the pattern is still followed (so it predicts again once allowed), but predicts nothing
        AccessHint strideHint = predictionsAllowed() ? hint : AccessHint.RANDOM;
        List<ByteRange> predicted;
        long leftBehind;
        synchronized (stridePattern) {
            predicted = stridePattern.observe(position, len, pinned.length(), prefetchEnd, strideHint);
            leftBehind = stridePattern.takeAbandoned();
        }
        waste.wasted(leftBehind);
        if (predicted.isEmpty()) {
            return NOTHING;
        }
        AtomicBoolean started = new AtomicBoolean();
        return () -> {
            if (started.compareAndSet(false, true)) {
                prefetchOn(pinned, predicted);
            }
        };
    }

    /** A vectored read's GET found the object changed: what its ranges fail with, and whether the stream moves. */
    Throwable changedUnder(PinnedVersion pinned, boolean forReader, PreconditionFailedException failure) {
        try {
            version.onChanged(pinned, forReader ? 1 : 0, !forReader, false, failure);
        } catch (IOException e) {
            return e;
        }
        // the stream is on another version now: a policy's read just fails; a reader's range is of the old one
        return forReader
                ? new VersionChangedException(address.bucket(), address.key(), pinned.etag(), null, failure)
                : failure;
    }

    private VectoredPlanner vectoredPlanner() {
        return new VectoredPlanner(planner, coalescer);
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
        // what the predictions fetched ahead of where the reader stopped is theirs to answer for now
        long rampAhead = Math.max(0, rampFetchedTo - streaming.sequential().nextExpected());
        long strideAhead;
        synchronized (stridePattern) {
            strideAhead = stridePattern.pending() + stridePattern.takeAbandoned();
        }
        waste.wasted(rampAhead + strideAhead);
        long read = statistics.bytesServed();
        wasteMemory.closed(address.bucket(), address.key(), waste.excess(read));
        long length = version.knownLength();
        if (read > 0 && length > 0 && length <= wholeReadSize) {
            wasteMemory.smallObjectClosed(address.bucket(), address.key(), length, read);
        }
    }

    /** Bytes the stream's format policy prefetched and the reader left unread: its predictions' waste too. */
    public void predictionWasted(long bytes) {
        waste.wasted(bytes);
    }

    /** Whether predictions (the ramp, the stride, the format policy's) may fetch ahead, as the waste bound stands. */
    public boolean predictionsAllowed() {
        return waste.allowsPrediction(statistics.bytesServed());
    }

    /**
     * A streaming read at {@code position} that does not follow on from the last leaves the ramp's window behind:
     * the bytes it skipped of it, or all of it ahead of the last read when it lands elsewhere. Their waste.
     */
    private void noteRampLeftBehind(long position) {
        long expected = streaming.sequential().nextExpected();
        long reach = rampFetchedTo;
        if (position == expected || reach <= expected) {
            return;
        }
        if (position > expected && position < reach) {
            waste.wasted(position - expected);
        } else {
            waste.wasted(reach - expected);
            rampFetchedTo = 0;
        }
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
            noteRampLeftBehind(position);
        }
        // a ramp that wasted too much predicts nothing (a limit at the read) until the reader has read enough
        long prefetchLimit = !streamingRead
                ? prefetchEnd
                : predictionsAllowed() ? Math.min(prefetchEnd, structureEnd.applyAsLong(position)) : position;
        ReadRequest read = new ReadRequest(position, len, pinned.length(), streamingRead, hint, false, prefetchLimit);
        ReadPlanner readPlanner = planner;
        // a small object is read whole whatever the minimum: its reads tell nothing about padding
        boolean adapts = !readPlanner.isSmall(pinned.length());
        if (!adapts) {
            // in as many parts as idle connections pay for
            readPlanner = readPlanner.withSmallObjectParts(
                    openStreams.partsAffordable(readPlanner.settings().prefetchParallelism()));
        }
        if (adapts) {
            if (streamingRead) {
                // Reads served quietly (StreamingState.readQuietly) were never planned, so never told; each of them
                // started where the last ended, so the run they continued was read whole, from its start to here.
                SequentialState run = streaming.sequential();
                if (run.streakStart() >= 0 && run.nextExpected() > run.streakStart()) {
                    demandMinimum.touched(run.streakStart(), run.nextExpected());
                }
            }
            demandMinimum.touched(position, read.end());
            readPlanner = readPlanner.withDemandMinimum(demandMinimum.minimum());
        }
        try (Acquisition acquisition = orchestrator.open(pinned)) {
            PlannedRead planned = new PlannedRead(acquisition, read, readPlanner, buffer, offset);
            orchestrator.acquire(
                    acquisition, readPlanner.lookupWindow(read), List.of(new ByteRange(position, read.end())), planned);
            afterSubmit.run();
            ReadPlan plan = planned.plan;
            if (adapts) {
                demandMinimum.planned(position, read.end(), plan.demand(), pinned.length());
            }
            List<Source> sources = planned.sources;
            sources.sort(Comparator.comparingLong(source -> source.range().start()));
            int copied = copy(
                    acquisition, pinned, sources, position, buffer, offset, read.end(), streamingRead, plan.quietEnd());
            acquisition.succeeded();
            boolean fetched = sources.stream().anyMatch(Source::own);
            statistics.served(copied, !missed && !fetched);
            return copied;
        }
    }

    /**
     * A streaming or positioned read's steps under the object's lock: its plan ({@link ReadPlanner}), and where its
     * bytes come from (its one wanted range, index 0, is the read).
     */
    private final class PlannedRead implements ReadOrchestrator.Planning {
        private final Acquisition acquisition;
        private final ReadRequest read;
        private final ReadPlanner readPlanner;
        private final ByteBuffer target;
        private final int offset;
        private final List<Source> sources = new ArrayList<>();
        private ReadPlan plan;

        PlannedRead(Acquisition acquisition, ReadRequest read, ReadPlanner readPlanner, byte[] buffer, int offset) {
            this.acquisition = acquisition;
            this.read = read;
            this.readPlanner = readPlanner;
            this.target = ByteBuffer.wrap(buffer);
            this.offset = offset;
        }

        @Override
        public FetchPlan plan(List<Block> known) {
            ReadRequest request = read;
            if (read.streaming()) {
                long position = read.position();
                request = read.starved(sources.stream()
                        .anyMatch(source -> source.range().contains(position)
                                && !source.block().isDone()));
            }
            plan = readPlanner.plan(
                    request,
                    read.streaming() ? streaming.sequential() : SequentialState.initial(),
                    known.stream().map(Block::range).toList());
            if (read.streaming()) {
                streaming.advance(plan.next());
            }
            return FetchPlan.of(plan);
        }

        @Override
        public void fromBlock(int reader, Block block, boolean cached) {
            sources.add(new Source(block.range(), block, !cached, null));
        }

        @Override
        public void direct(int reader, RangeFetch fetch, ByteRange bytes) {
            // no room: only the bytes the reader asked for, straight into its buffer
            acquisition.directInto(fetch, bytes, target, offset + (int) (bytes.start() - read.position()));
            sources.add(new Source(bytes, null, true, fetch));
        }

        @Override
        public void prefetchClaimed(ByteRange bytes) {
            rampFetchedTo = Math.max(rampFetchedTo, bytes.end()); // only streaming reads plan a ramp
        }
    }

    /** Copies the read's bytes from its sources in order; a streaming read hands over what is ready early. */
    private int copy(
            Acquisition acquisition,
            PinnedVersion pinned,
            List<Source> sources,
            long position,
            byte[] buffer,
            int offset,
            long end,
            boolean streamingRead,
            long quietEnd)
            throws IOException {
        long cursor = position;
        int copied = 0;
        StreamingState.QuietBlock last = null;
        for (Source source : sources) {
            if (source.range().end() <= cursor) {
                continue;
            }
            if (source.range().start() > cursor) {
                throw new IllegalStateException("Plan for " + address + " left " + cursor + " uncovered");
            }
            int count = (int) (Math.min(source.range().end(), end) - cursor);
            if (source.block() == null) {
                // a direct GET into the buffer is always waited for: nothing may write there after the read returns
                acquisition.await(source.fetch());
                last = null;
            } else {
                if (copied > 0 && streamingRead && !source.block().isDone()) {
                    break; // hand over what is here; the next read waits for the rest
                }
                byte[] data = acquisition.await(source.block(), source.own());
                System.arraycopy(data, (int) (cursor - source.range().start()), buffer, offset + copied, count);
                cache.markRead(source.block());
                last = new StreamingState.QuietBlock(pinned, source.block(), data, quietEnd);
            }
            cursor += count;
            copied += count;
            if (cursor >= end) {
                break;
            }
        }
        for (Source source : sources) {
            if (source.block() == null && source.range().start() >= cursor) {
                acquisition.await(source.fetch()); // past an early hand-over: still the reader's buffer
            }
        }
        if (streamingRead) {
            if (streaming.sequential().window() > 0) {
                for (Source source : sources) {
                    if (source.block() != null
                            && source.range().end() <= cursor
                            && source.block().isDone()) {
                        cache.markPassed(source.block());
                    }
                }
            }
            StreamingState.QuietBlock next = cursor == end ? last : null;
            if (next != null) {
                acquisition.keep(next.block()); // its reference now belongs to the streaming state
            }
            streaming.replaceQuiet(next);
            if (cursor < end) {
                // handed over less than planned: the next read starts here and must still count as following on
                streaming.advance(streaming.sequential().at(cursor));
            }
        }
        return copied;
    }

    /** Where a stretch of a read comes from: a block (shared, or claimed by this read), or a direct GET. */
    private record Source(ByteRange range, Block block, boolean own, RangeFetch fetch) {}
}
