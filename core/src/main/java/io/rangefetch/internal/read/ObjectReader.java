package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectAddress;
import io.rangefetch.client.ObjectContent;
import io.rangefetch.client.PreconditionFailedException;
import io.rangefetch.client.RangeGetRequest;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.fetch.FetchPriority;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.ReadPlan;
import io.rangefetch.internal.plan.ReadRequest;
import io.rangefetch.internal.plan.SequentialState;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Reads one object for one stream: plans each read, claims and fetches blocks through the factory's cache and
 * scheduler, and copies bytes out, all of one version (see {@link ObjectVersion}, which learns and pins it). A
 * read that meets a new version before the stream served anything starts over on it.
 *
 * <p><b>Threads.</b> Positioned reads may run from many threads at once; streaming reads are serialized by the
 * stream (they share the sequential state). Fetches run on the scheduler's threads; the calling thread waits
 * only for the blocks that hold the bytes it asked for.
 */
public final class ObjectReader implements AutoCloseable {
    private static final int MAX_ATTEMPTS = 3;

    private final ReaderContext context;
    private final ObjectAddress address;
    // Set by shapeReads before the stream is handed out, as its format policy asks.
    private AccessHint hint;
    private long prefetchEnd = Long.MAX_VALUE;
    private final ObjectVersion version;
    private final StatisticsCounter statistics;
    // This stream's prefetches until they load or fail, so closing the stream can stop them.
    private final Map<Block, FetchScheduler.Ticket> prefetches = new ConcurrentHashMap<>();
    // Touched only by streaming reads, which the stream serializes.
    private SequentialState sequential = SequentialState.initial();
    private QuietBlock quiet;

    /**
     * @param knownLength the length if known, else -1
     * @param knownEtag the ETag if known, else {@code null}
     * @param etagPinnedByCaller whether the caller named the ETag (then a change is always an error)
     */
    public ObjectReader(ReaderContext context, ObjectAddress address, long knownLength, String knownEtag,
            boolean etagPinnedByCaller, AccessHint hint, StatisticsCounter statistics) {
        this.context = requireNonNull(context, "context is null");
        this.address = requireNonNull(address, "address is null");
        this.hint = requireNonNull(hint, "hint is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.version = new ObjectVersion(context, address, knownLength, knownEtag, etagPinnedByCaller, statistics);
    }

    /**
     * How streaming reads are planned, as the stream's format policy decided: the access pattern and the offset
     * sequential prefetch stops at. Called before the stream is handed out.
     */
    public void shapeReads(AccessHint accessHint, long prefetchLimit) {
        this.hint = requireNonNull(accessHint, "accessHint is null");
        this.prefetchEnd = prefetchLimit;
    }

    /**
     * Starts fetching, without waiting, what a format policy wants as the stream opens: the last {@code len}
     * bytes ({@code tail}), or {@code len} bytes from {@code start}. When the version is not known yet this is the
     * request that learns it, run in a scheduler slot; reads that would learn the version wait for it instead of
     * sending their own. When it is known, the bytes are prefetched (a small object whole, in parallel parts).
     * Then {@code opened} runs, unless the fetch failed: the reader's own first read then meets the failure.
     */
    public void startOpenFetch(boolean tail, long start, long len, Runnable opened) {
        if (version.isKnown()) {
            long objectLength = version.length();
            // never smaller than the minimum request, as the request that learns the version would be
            long size = Math.max(len, context.planner().settings().minRequestSize());
            ByteRange range = context.planner().isSmall(objectLength) ? new ByteRange(0, objectLength)
                    : tail ? new ByteRange(Math.max(0, objectLength - size), objectLength)
                    : new ByteRange(Math.min(start, objectLength), Math.min(objectLength, start + size));
            if (range.length() > 0) {
                prefetch(List.of(range));
            }
            opened.run();
            return;
        }
        int size = (int) Math.min(Integer.MAX_VALUE, Math.max(1, len));
        version.startLearning(tail, start, size, hint, prefetchEnd, opened);
    }

    public ObjectAddress address() {
        return address;
    }

    /** The length if known, else -1; never sends a request. */
    public long knownLength() {
        return version.length();
    }

    /** The ETag this stream is pinned to, or {@code null} before it knows one; never sends a request. */
    public String knownEtag() {
        return version.etag();
    }

    /** The length, sending a HEAD only when nothing has told it yet. */
    public long length() throws IOException {
        return version.lengthOrHead();
    }

    /**
     * Reads up to {@code len} bytes at {@code position}: at least one unless {@code len} is 0, and all of them
     * when {@code streaming} is false. Returns -1 at or past the end.
     */
    public int read(long position, byte[] buffer, int offset, int len, boolean streaming) throws IOException {
        if (len == 0) {
            return 0;
        }
        return withRetries(() -> readOnce(position, buffer, offset, len, streaming));
    }

    /**
     * Learns the ETag and length, unless known, with the one GET that would learn them for a read of
     * {@code len} bytes at {@code position} (its bytes stay cached when the budget has room).
     */
    public void learnVersion(long position, int len) throws IOException {
        if (version.isKnown()) {
            return;
        }
        withRetries(() -> {
            fetchFirst(position, Math.max(len, 1), false);
            return 0;
        });
    }

    /**
     * Starts a vectored read of the version this stream is pinned to; returns once its GETs are queued. The
     * caller has learned the version (see {@link #learnVersion}) and checked the ranges: disjoint and within
     * the object.
     */
    public void readVectored(List<VectoredRange> ranges) {
        readVectored(ranges, true);
    }

    /**
     * A vectored read for the stream's format policy (a footer it parses): like {@link #readVectored(List)}, but
     * its bytes are not served to the reader, so they do not count as served and do not pin the stream to this
     * version the way a reader's bytes do.
     */
    public void readVectoredForFormat(List<VectoredRange> ranges) {
        readVectored(ranges, false);
    }

    private void readVectored(List<VectoredRange> ranges, boolean forReader) {
        String pinned = version.etag();
        if (pinned == null || version.length() < 0) {
            throw new IllegalStateException("The version of " + address + " is not known yet");
        }
        new VectoredRead(this, context, pinned, statistics, ranges, forReader).start();
    }

    /**
     * Brings {@code ranges} into the cache at prefetch priority, coalesced as a vectored read would be, without
     * waiting; they are stopped when this stream closes unless another reader waits for them. Does nothing
     * until the stream knows the object's version.
     */
    public void prefetch(List<ByteRange> ranges) {
        String pinned = version.etag();
        if (pinned == null || version.length() < 0) {
            return;
        }
        VectoredRead.prefetch(this, context, pinned, statistics, ranges).start();
    }

    /** Lets closing this stream stop a prefetch it started. */
    void trackPrefetch(Block block, FetchScheduler.Ticket ticket) {
        prefetches.put(block, ticket);
        block.whenJoined(ticket::promote);
        block.loaded().whenComplete((data, failure) -> prefetches.remove(block));
    }

    /**
     * Lets closing this stream stop a prefetch GET that fills several blocks: only once every one of them is
     * abandoned, so a reader that joined one of them still gets its bytes.
     */
    void trackPrefetch(List<Block> blocks, FetchScheduler.Ticket ticket) {
        if (blocks.size() == 1) {
            trackPrefetch(blocks.get(0), ticket);
            return;
        }
        java.util.concurrent.atomic.AtomicInteger abandoned = new java.util.concurrent.atomic.AtomicInteger();
        FetchScheduler.Ticket shared = new FetchScheduler.Ticket() {
            @Override
            public boolean cancel() {
                return abandoned.incrementAndGet() == blocks.size() && ticket.cancel();
            }

            @Override
            public void promote() {
                ticket.promote();
            }
        };
        blocks.forEach(block -> trackPrefetch(block, shared));
    }

    void markServed() {
        version.markServed();
    }

    /** A GET for {@code pinned} found another version: drop the old bytes, and say what happened. */
    ObjectChangedException changedUnder(String pinned, PreconditionFailedException failure) {
        return version.changedUnder(pinned, failure);
    }

    /** Reads the last {@code min(len, length)} bytes into {@code buffer}; returns how many. */
    public int readTail(byte[] buffer, int offset, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        return withRetries(() -> readTailOnce(buffer, offset, len));
    }

    private interface ReadAttempt {
        int run() throws IOException;
    }

    /**
     * Runs a read again when the version moved before this stream served anything, or when a block it shared
     * was lost; a version change after bytes were served leaves as {@link ObjectChangedException}.
     */
    private int withRetries(ReadAttempt attempt) throws IOException {
        for (int attempts = 1; ; attempts++) {
            String pinned = version.etag();
            try {
                return attempt.run();
            } catch (PreconditionFailedException e) {
                if (version.onChanged(pinned, e)) {
                    sequential = SequentialState.initial(); // what was read in a row was another version
                }
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
     * Lets go of the block streaming reads were served from. Call it only where streaming reads are
     * serialized: a read may be copying from that block.
     */
    public void releaseStreamingState() {
        replaceQuiet(null);
    }

    private void replaceQuiet(QuietBlock next) {
        QuietBlock previous = quiet;
        quiet = next;
        if (previous != null) {
            if (sequential.window() > 0 && previous.block().range().end() <= sequential.nextExpected()) {
                context.cache().markPassed(previous.block());
            }
            context.cache().release(previous.block());
        }
    }

    /**
     * Stops this stream's prefetches that no other reader waits for: queued ones never start, running ones are
     * aborted. A prefetch another reader joined runs on for that reader.
     */
    @Override
    public void close() {
        version.stopLearning();
        prefetches.forEach((block, ticket) -> {
            if (block.tryAbandon()) {
                ticket.cancel();
            }
        });
    }

    private int readOnce(long position, byte[] buffer, int offset, int len, boolean streaming) throws IOException {
        if (streaming) {
            int copied = readQuietly(position, buffer, offset, len);
            if (copied > 0) {
                return copied;
            }
        }
        boolean missed = false;
        long knownLength = version.length();
        if (knownLength >= 0 && position >= knownLength) {
            return -1;
        }
        if (version.etag() == null || knownLength < 0) {
            ObjectVersion.FirstFetch first = fetchFirst(position, len, false);
            if (first != null && !first.cached() && first.range().contains(position)) {
                int copied = first.copyTo(position, buffer, offset, len);
                version.markServed();
                statistics.served(copied, false);
                return copied;
            }
            missed = first != null;
        }
        long objectLength = version.length();
        if (position >= objectLength) {
            return -1;
        }
        return readCached(version.etag(), objectLength, position, buffer, offset, len, streaming, missed);
    }

    /**
     * Serves a streaming read from the block the last one ended in, without planning, when the planner said
     * such a read would need nothing fetched (see {@link ReadPlan#quietEnd()}); returns 0 when it cannot. A
     * sequential scan of 8 KiB reads spends most of its reads here, so this path takes no lock and allocates
     * nothing.
     */
    private int readQuietly(long position, byte[] buffer, int offset, int len) {
        QuietBlock block = quiet;
        if (block == null || position != sequential.nextExpected() || !block.etag().equals(version.etag())) {
            return 0;
        }
        long end = Math.min(position + len, version.length());
        ByteRange range = block.block().range();
        if (end > block.quietEnd() || position < range.start() || end > range.end()) {
            return 0;
        }
        int count = (int) (end - position);
        System.arraycopy(block.data(), (int) (position - range.start()), buffer, offset, count);
        sequential = sequential.followedBy(end);
        statistics.served(count, true);
        return count;
    }

    private int readTailOnce(byte[] buffer, int offset, int len) throws IOException {
        ObjectVersion.FirstFetch first = version.isKnown() ? null : fetchFirst(-1, len, true);
        long objectLength = version.length();
        int wanted = (int) Math.min(len, objectLength);
        long position = objectLength - wanted;
        int copied = 0;
        if (first != null && !first.cached() && wanted > 0 && first.range().contains(position)) {
            copied = first.copyTo(position, buffer, offset, wanted);
            version.markServed();
            statistics.served(copied, false);
        }
        while (copied < wanted) {
            int read = readCached(version.etag(), objectLength, position + copied, buffer, offset + copied, wanted - copied,
                    false, first != null);
            copied += read;
        }
        return wanted;
    }

    /** The request that learns the version, shaped by this stream's hint and prefetch end. */
    private ObjectVersion.FirstFetch fetchFirst(long position, int len, boolean tail) throws IOException {
        return version.fetchFirst(position, len, tail, hint, prefetchEnd);
    }

    private int readCached(String pinned, long objectLength, long position, byte[] buffer, int offset, int len,
            boolean streaming, boolean missed) throws IOException {
        ObjectId id = objectId(pinned);
        ReadRequest read = new ReadRequest(position, len, objectLength, streaming, hint, false, prefetchEnd);
        List<Block> known;
        ReadPlan plan;
        List<Block> demand = new ArrayList<>();
        List<Block> prefetch = new ArrayList<>();
        List<ByteRange> direct = new ArrayList<>();
        ReentrantLock lock = context.cache().lockFor(id);
        lock.lock();
        try {
            ByteRange window = context.planner().lookupWindow(read);
            known = context.cache().blocksOverlapping(id, window.start(), window.end());
            if (!joinAll(known, position, read.end())) {
                known = context.cache().blocksOverlapping(id, window.start(), window.end());
            }
            if (streaming) {
                read = read.starved(known.stream().anyMatch(block -> block.range().contains(position) && !block.isDone()));
            }
            plan = context.planner().plan(read, streaming ? sequential : SequentialState.initial(),
                    known.stream().map(Block::range).toList());
            if (streaming) {
                sequential = plan.next();
            }
            // Retained before this read claims anything: its own claims may evict blocks it is about to copy
            // from when the budget is tight, and a retained block's array outlives its eviction.
            retainAll(known);
            for (ByteRange range : plan.demand()) {
                Block block = context.cache().claim(id, range, false, statistics);
                if (block == null) {
                    direct.add(range);
                } else {
                    context.cache().retain(block); // cannot fail: its fetch is not even submitted yet
                    demand.add(block);
                }
            }
            for (ByteRange range : plan.prefetch()) {
                Block block = context.cache().claim(id, range, true, statistics);
                if (block == null) {
                    break;
                }
                prefetch.add(block);
            }
        } finally {
            lock.unlock();
        }
        demand.forEach(block -> submit(block, pinned, FetchPriority.DEMAND));
        prefetch.forEach(block -> submit(block, pinned, FetchPriority.PREFETCH));

        List<Source> sources = new ArrayList<>();
        for (Block block : known) {
            sources.add(new Source(block.range(), block, false));
        }
        demand.forEach(block -> sources.add(new Source(block.range(), block, true)));
        direct.forEach(range -> sources.add(new Source(range, null, true)));
        sources.sort(Comparator.comparingLong(source -> source.range().start()));

        // Every block copied from is retained until the copy is done, so its array cannot be recycled under us.
        List<Block> retained = new ArrayList<>(demand);
        retained.addAll(known);
        long end = read.end();
        long cursor = position;
        int copied = 0;
        QuietBlock last = null;
        try {
            for (Source source : sources) {
                if (source.range().end() <= cursor) {
                    continue;
                }
                if (source.range().start() > cursor) {
                    throw new IllegalStateException("Plan for " + address + " left " + cursor + " uncovered");
                }
                boolean ready = source.block() != null && source.block().isDone();
                if (copied > 0 && streaming && !ready) {
                    break; // hand over what is here; the next read waits for the rest
                }
                int count = (int) (Math.min(source.range().end(), end) - cursor);
                if (source.block() != null) {
                    byte[] data = await(source.block(), source.own());
                    System.arraycopy(data, (int) (cursor - source.range().start()), buffer, offset + copied, count);
                    context.cache().markRead(source.block());
                    last = new QuietBlock(pinned, source.block(), data, plan.quietEnd());
                } else {
                    readDirect(pinned, new ByteRange(cursor, cursor + count), buffer, offset + copied);
                    last = null;
                }
                cursor += count;
                copied += count;
                if (cursor >= end) {
                    break;
                }
            }
            if (streaming) {
                if (sequential.window() > 0) {
                    for (Source source : sources) {
                        if (source.block() != null && source.range().end() <= cursor) {
                            context.cache().markPassed(source.block());
                        }
                    }
                }
                QuietBlock next = cursor == end ? last : null;
                if (next != null) {
                    retained.remove(next.block()); // its reference now belongs to the quiet block
                }
                replaceQuiet(next);
                if (cursor < end) {
                    // handed over less than planned: the next read starts here and must still count as following on
                    sequential = sequential.at(cursor);
                }
            }
        } finally {
            retained.forEach(context.cache()::release);
        }
        version.markServed();
        statistics.served(copied, !missed && demand.isEmpty() && direct.isEmpty());
        return copied;
    }

    /** Retains every block, or none: a block evicted since it was looked up is a lost block, to look up anew. */
    private void retainAll(List<Block> blocks) throws BlockLostException {
        for (int i = 0; i < blocks.size(); i++) {
            if (!context.cache().retain(blocks.get(i))) {
                blocks.subList(0, i).forEach(context.cache()::release);
                throw new BlockLostException("Block " + blocks.get(i) + " left the cache while being read", null);
            }
        }
    }

    /**
     * Joins the in-flight blocks among {@code blocks} that overlap {@code [from, to)}: this read will wait for
     * them. One whose fetch is being abandoned is forgotten instead; then this returns {@code false} and the
     * caller looks again. The caller holds the object's lock.
     */
    private boolean joinAll(List<Block> blocks, long from, long to) {
        boolean all = true;
        for (Block block : blocks) {
            if (block.range().start() < to && block.range().end() > from && !joinOrForget(block)) {
                all = false;
            }
        }
        return all;
    }

    /**
     * Joins {@code block} if it is in flight, so its fetch is not abandoned under a reader that waits for it; if
     * it is being abandoned already, takes it out of the index (its range can be claimed anew) and returns
     * {@code false}. The caller holds the object's lock.
     */
    boolean joinOrForget(Block block) {
        if (block.isDone() || block.join()) {
            return true;
        }
        context.cache().forget(block);
        return false;
    }

    private void submit(Block block, String pinned, FetchPriority priority) {
        RangeFetch fetch = new RangeFetch(this, context, pinned, statistics, block.range(), block.prefetch());
        fetch.fill(block);
        FetchScheduler.Ticket ticket = context.scheduler().submit(priority, fetch::run, fetch::fail);
        if (priority == FetchPriority.PREFETCH) {
            trackPrefetch(block, ticket);
        }
    }

    /** Fetches exactly {@code range} straight into the reader's buffer: the cache had no room for it. */
    private void readDirect(String pinned, ByteRange range, byte[] buffer, int offset) throws IOException {
        RangeGetRequest request = RangeGetRequest.of(address, range, pinned);
        try {
            context.scheduler().call(FetchPriority.DEMAND, abort -> {
                try (ObjectContent content = context.client().get(request)) {
                    abort.attach(content);
                    ObjectVersion.checkEtag(request, content.metadata().etag());
                    Bodies.checkRange(request, content, range);
                    Bodies.fill(request, content, buffer, offset, (int) range.length());
                    return null;
                }
            });
        } catch (IOException e) {
            statistics.failedGetSent();
            throw e;
        }
        statistics.getSent(range.length(), false);
    }

    private byte[] await(Block block, boolean own) throws IOException {
        try {
            return block.loaded().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while reading " + block);
            interrupted.initCause(e);
            throw interrupted;
        } catch (CancellationException e) {
            throw own ? new IOException("Read of " + block + " was cancelled", e)
                    : new BlockLostException("Shared fetch of " + block + " was cancelled", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof PreconditionFailedException) {
                throw new PreconditionFailedException(cause.getMessage(), cause);
            }
            if (cause instanceof FileNotFoundException) {
                FileNotFoundException notFound = new FileNotFoundException(cause.getMessage());
                notFound.initCause(cause);
                throw notFound;
            }
            if (!own) {
                throw new BlockLostException("Shared fetch of " + block + " failed", cause);
            }
            throw new IOException("Read of " + block + " failed: " + cause.getMessage(), cause);
        }
    }

    ObjectId objectId(String pinnedEtag) {
        return version.objectId(pinnedEtag);
    }

    /** The loaded block a streaming read ended in, and how far reads may follow on without a plan. */
    private record QuietBlock(String etag, Block block, byte[] data, long quietEnd) {}

    /** Where a stretch of a read comes from: a block (shared or claimed by this read) or a direct GET. */
    private record Source(ByteRange range, Block block, boolean own) {}
}
