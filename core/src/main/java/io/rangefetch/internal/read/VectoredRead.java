package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.PreconditionFailedException;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.fetch.FetchPriority;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.plan.CallerRange;
import io.rangefetch.internal.plan.CoalescedRequest;
import io.rangefetch.internal.plan.RangeSegment;
import io.rangefetch.internal.plan.RequestPart;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One vectored read of one pinned object version: every range's bytes fetched at once, in as few GETs as the
 * coalescing rules allow, each range handed over as soon as its own bytes are in.
 *
 * <p><b>Plan.</b> Under the object's lock (so no other reader claims the same bytes meanwhile): bytes already
 * cached or in flight are taken from there, and their in-flight fetches joined (a prefetch joined by a waiting
 * reader turns into a demand fetch). A small object ({@code read.small-object-size}) is then fetched whole, in
 * parallel parts, as any first read of it would be. Otherwise the missing pieces are coalesced (see {@code RangeCoalescer}), never
 * across a block already in the cache, since blocks of one object never overlap. Each GET of the plan claims
 * a block for its whole range, or one block per piece when its gap bytes exceed the discard tolerance (they are
 * then read and dropped, never cached). Where the budget has no room, a GET writes straight into the
 * caller's buffers instead.
 *
 * <p><b>Failure.</b> A failed GET fails exactly the ranges whose bytes it carried, with its cause (a range it
 * carried only partly fails too); every other range completes. A GET answered with another ETag fails its
 * ranges with {@link io.rangefetch.ObjectChangedException}.
 *
 * <p>Threads: {@link #start()} runs on the caller's thread and returns once the GETs are queued; GETs run on the
 * scheduler's threads, and a range is copied out on the thread that delivered its last bytes.
 */
final class VectoredRead {
    private final ObjectReader reader;
    private final ReaderContext context;
    private final String pinned;
    private final StatisticsCounter statistics;
    private final List<VectoredRange> ranges;
    // Set for a prefetch: bytes to bring into the cache, for nobody waiting yet
    private final List<ByteRange> prefetched;
    // Whether the ranges are handed to the stream's reader (they count as served), not to its format policy
    private final boolean forReader;

    /**
     * @param forReader {@code false} for a format policy's own read (its footer): its bytes are not served to the
     *     reader, so they neither count in the statistics nor stop the stream moving to a new version silently
     */
    VectoredRead(ObjectReader reader, ReaderContext context, String pinned, StatisticsCounter statistics,
            List<VectoredRange> ranges, boolean forReader) {
        this(reader, context, pinned, statistics, ranges, null, forReader);
    }

    private VectoredRead(ObjectReader reader, ReaderContext context, String pinned, StatisticsCounter statistics,
            List<VectoredRange> ranges, List<ByteRange> prefetched, boolean forReader) {
        this.forReader = forReader;
        this.reader = requireNonNull(reader, "reader is null");
        this.context = requireNonNull(context, "context is null");
        this.pinned = requireNonNull(pinned, "pinned is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.ranges = List.copyOf(ranges);
        this.prefetched = prefetched == null ? null : List.copyOf(prefetched);
    }

    /**
     * A prefetch of {@code ranges} into the cache by the same plan as a vectored read, at prefetch priority: bytes
     * cached or in flight are left alone, and where the budget has no room for a prefetch nothing is fetched.
     */
    static VectoredRead prefetch(ObjectReader reader, ReaderContext context, String pinned,
            StatisticsCounter statistics, List<ByteRange> ranges) {
        return new VectoredRead(reader, context, pinned, statistics, List.of(), ranges, false);
    }

    private boolean isPrefetch() {
        return prefetched != null;
    }

    void start() {
        List<Assembly> assemblies = new ArrayList<>();
        for (VectoredRange range : ranges) {
            if (range.length() == 0) {
                range.complete();
            } else {
                assemblies.add(new Assembly(range));
            }
        }
        if (isPrefetch()) {
            union(prefetched, reader.knownLength()).forEach(range -> assemblies.add(new Assembly(range)));
        }
        if (assemblies.isEmpty()) {
            return;
        }
        assemblies.sort(Comparator.comparingLong(assembly -> assembly.offset));
        ObjectId id = reader.objectId(pinned);
        long objectLength = reader.knownLength();
        boolean small = context.planner().isSmall(objectLength);
        List<RangeFetch> fetches;
        ReentrantLock lock = context.cache().lockFor(id);
        lock.lock();
        try {
            long from = small ? 0 : assemblies.get(0).offset;
            long to = small ? objectLength : assemblies.get(assemblies.size() - 1).end;
            List<Block> known = context.cache().blocksOverlapping(id, from, to);
            List<Block> present = takeCached(known, assemblies);
            List<List<Piece>> missing = missingPieces(present, assemblies);
            fetches = missing.isEmpty() ? List.of()
                    : small ? planWholeObject(id, present, assemblies, objectLength)
                    : planFetches(id, missing, present);
        } finally {
            lock.unlock();
        }
        assemblies.stream().filter(assembly -> assembly.range != null).forEach(Assembly::whenReady);
        for (RangeFetch fetch : fetches) {
            FetchScheduler.Ticket ticket = context.scheduler().submit(
                    isPrefetch() ? FetchPriority.PREFETCH : FetchPriority.DEMAND, fetch::run, fetch::fail);
            if (isPrefetch()) {
                reader.trackPrefetch(fetch.filled(), ticket);
            }
        }
    }

    /** Prefetch ranges may overlap one another: their union, within the object, as disjoint ranges by offset. */
    private static List<ByteRange> union(List<ByteRange> ranges, long objectLength) {
        List<ByteRange> sorted = ranges.stream().filter(range -> range.start() < objectLength && range.length() > 0)
                .sorted(Comparator.comparingLong(ByteRange::start)).toList();
        List<ByteRange> union = new ArrayList<>();
        for (ByteRange range : sorted) {
            long end = Math.min(range.end(), objectLength);
            ByteRange last = union.isEmpty() ? null : union.get(union.size() - 1);
            if (last != null && range.start() <= last.end()) {
                union.set(union.size() - 1, new ByteRange(last.start(), Math.max(last.end(), end)));
            } else {
                union.add(new ByteRange(range.start(), end));
            }
        }
        return union;
    }

    /**
     * The known blocks to read from: each one some range needs is joined if in flight (or forgotten, when its
     * fetch is being abandoned) and retained once per range that copies from it. Returns every block left in
     * the index, in order: those bound the coalescing.
     */
    private List<Block> takeCached(List<Block> known, List<Assembly> assemblies) {
        if (isPrefetch()) {
            return known; // nobody waits: nothing to join or retain
        }
        List<Block> present = new ArrayList<>(known.size());
        for (Block block : known) {
            List<Assembly> users = overlapping(assemblies, block.range());
            if (users.isEmpty()) {
                present.add(block);
                continue;
            }
            if (!reader.joinOrForget(block)) {
                continue;
            }
            if (!context.cache().retain(block)) {
                continue; // evicted and released for good, so already out of the index
            }
            for (int i = 1; i < users.size(); i++) {
                context.cache().retain(block); // cannot fail: the first reference is held
            }
            users.forEach(user -> user.fromBlock(block, true));
            present.add(block);
        }
        return present;
    }

    /** The bytes of the ranges no present block holds, in object order, split into runs no block interrupts. */
    private static List<List<Piece>> missingPieces(List<Block> present, List<Assembly> assemblies) {
        List<List<Piece>> runs = new ArrayList<>();
        List<Piece> run = new ArrayList<>();
        int next = 0; // first present block that may still lie at or after the cursor
        for (Assembly assembly : assemblies) {
            long cursor = assembly.offset;
            long end = assembly.end;
            while (cursor < end) {
                while (next < present.size() && present.get(next).range().end() <= cursor) {
                    next++;
                }
                Block block = next < present.size() ? present.get(next) : null;
                if (block != null && block.range().start() <= cursor) {
                    cursor = block.range().end(); // held by this block
                    continue;
                }
                long pieceEnd = block == null ? end : Math.min(end, block.range().start());
                if (!run.isEmpty() && blockBetween(present, next, run.get(run.size() - 1).bytes.end(), cursor)) {
                    runs.add(run);
                    run = new ArrayList<>();
                }
                run.add(new Piece(assembly, new ByteRange(cursor, pieceEnd)));
                cursor = pieceEnd;
            }
        }
        if (!run.isEmpty()) {
            runs.add(run);
        }
        return runs;
    }

    // Whether a present block lies in [from, to); blocks before `next` end at or before `to`.
    private static boolean blockBetween(List<Block> present, int next, long from, long to) {
        for (int i = next - 1; i >= 0; i--) {
            ByteRange range = present.get(i).range();
            if (range.end() <= from) {
                return false;
            }
            if (range.start() < to) {
                return true;
            }
        }
        return false;
    }

    /** Coalesces each run and claims the blocks its GETs fill. */
    private List<RangeFetch> planFetches(ObjectId id, List<List<Piece>> runs, List<Block> present) {
        List<RangeFetch> fetches = new ArrayList<>();
        for (List<Piece> run : runs) {
            List<CallerRange> pieces = run.stream()
                    .map(piece -> new CallerRange(piece.bytes.start(), piece.bytes.length())).toList();
            for (CoalescedRequest request : context.coalescer().coalesce(pieces)) {
                for (RequestPart part : request.parts()) {
                    if (isPrefetch()) {
                        claimPrefetch(id, part, request.discardGaps(), fetches);
                    } else {
                        fetches.add(claimTargets(id, part, run, request.discardGaps()));
                    }
                }
            }
        }
        return fetches;
    }

    /**
     * A small object is fetched whole on a read that misses, as a streaming or positioned read would fetch it:
     * every stretch no present block holds, in parallel parts, whatever the ranges asked for.
     */
    private List<RangeFetch> planWholeObject(ObjectId id, List<Block> present, List<Assembly> assemblies,
            long objectLength) {
        List<RangeFetch> fetches = new ArrayList<>();
        long cursor = 0;
        for (int i = 0; i <= present.size(); i++) {
            long stretchEnd = i < present.size() ? present.get(i).range().start() : objectLength;
            if (stretchEnd > cursor) {
                for (ByteRange part : context.planner().splitSmall(new ByteRange(cursor, stretchEnd))) {
                    claimWholePart(id, part, assemblies, fetches);
                }
            }
            if (i < present.size()) {
                cursor = Math.max(cursor, present.get(i).range().end());
            }
        }
        return fetches;
    }

    private void claimWholePart(ObjectId id, ByteRange part, List<Assembly> assemblies, List<RangeFetch> fetches) {
        // a prefetch's own assemblies wait for nothing: only a reader's ranges use the part
        List<Assembly> users = overlapping(assemblies, part).stream().filter(user -> user.range != null).toList();
        Block block = context.cache().claim(id, part, isPrefetch(), statistics);
        if (block == null && users.isEmpty()) {
            return; // no room, and nobody asked for these bytes
        }
        RangeFetch fetch = newFetch(part);
        if (block != null) {
            fetch.fill(block);
        }
        for (Assembly user : users) {
            if (block != null) {
                context.cache().retain(block); // cannot fail: its fetch is not even submitted yet
                user.fromBlock(block, false);
            } else {
                direct(fetch, user, new ByteRange(Math.max(part.start(), user.offset), Math.min(part.end(), user.end)));
            }
        }
        fetches.add(fetch);
    }

    /**
     * Claims prefetch blocks for one part: the whole part, or one block per segment when the gap bytes are to be
     * dropped. Where the budget has no room for a prefetch, those bytes are simply not fetched.
     */
    private void claimPrefetch(ObjectId id, RequestPart part, boolean discardGaps, List<RangeFetch> fetches) {
        List<ByteRange> pieces = discardGaps
                ? part.segments().stream().map(RangeSegment::bytes).toList()
                : List.of(part.range());
        List<Block> claimed = new ArrayList<>();
        for (ByteRange piece : pieces) {
            Block block = context.cache().claim(id, piece, true, statistics);
            if (block != null) {
                claimed.add(block);
            }
        }
        if (!claimed.isEmpty()) {
            RangeFetch fetch = newFetch(new ByteRange(claimed.get(0).range().start(),
                    claimed.get(claimed.size() - 1).range().end()));
            claimed.forEach(fetch::fill);
            fetches.add(fetch);
        }
    }

    private RangeFetch newFetch(ByteRange bytes) {
        return new RangeFetch(reader, context, pinned, statistics, bytes, isPrefetch());
    }

    /** Bytes of {@code assembly}'s range that {@code fetch} writes straight into its buffer. */
    private static void direct(RangeFetch fetch, Assembly assembly, ByteRange segment) {
        if (fetch.direct(assembly.range, segment)) {
            assembly.waitFor(fetch.directWrites());
        }
    }

    private RangeFetch claimTargets(ObjectId id, RequestPart part, List<Piece> run, boolean discardGaps) {
        RangeFetch fetch = newFetch(part.range());
        Block whole = discardGaps ? null : context.cache().claim(id, part.range(), false, statistics);
        for (RangeSegment segment : part.segments()) {
            Assembly assembly = run.get(segment.range()).assembly;
            Block target = whole;
            if (target == null && !discardGaps) {
                direct(fetch, assembly, segment.bytes());
                continue;
            }
            if (target == null) {
                target = context.cache().claim(id, segment.bytes(), false, statistics);
                if (target == null) {
                    direct(fetch, assembly, segment.bytes());
                    continue;
                }
                fetch.fill(target);
            }
            context.cache().retain(target); // cannot fail: its fetch is not even submitted yet
            assembly.fromBlock(target, false);
        }
        if (whole != null) {
            fetch.fill(whole);
        }
        return fetch;
    }

    private static List<Assembly> overlapping(List<Assembly> assemblies, ByteRange bytes) {
        List<Assembly> result = new ArrayList<>(1);
        int low = 0;
        int high = assemblies.size();
        while (low < high) { // first range that ends after the block starts
            int middle = (low + high) >>> 1;
            if (assemblies.get(middle).end <= bytes.start()) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        for (int i = low; i < assemblies.size() && assemblies.get(i).offset < bytes.end(); i++) {
            result.add(assemblies.get(i));
        }
        return result;
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** Bytes of one caller range that must be fetched. */
    private record Piece(Assembly assembly, ByteRange bytes) {}

    /** One caller range and where its bytes come from. */
    private final class Assembly {
        private final long offset;
        private final long end;
        // null for bytes that are only prefetched: nobody waits for them
        private final VectoredRange range;
        private final List<Block> blocks = new ArrayList<>();
        private final List<CompletableFuture<?>> waits = new ArrayList<>();
        private boolean fetched;

        Assembly(VectoredRange range) {
            this.offset = range.offset();
            this.end = range.end();
            this.range = range;
        }

        Assembly(ByteRange prefetched) {
            this.offset = prefetched.start();
            this.end = prefetched.end();
            this.range = null;
        }

        /** Copy from {@code block}, retained for this range already. */
        void fromBlock(Block block, boolean cached) {
            blocks.add(block);
            waits.add(block.loaded());
            fetched |= !cached;
        }

        void waitFor(CompletableFuture<Void> directWrite) {
            waits.add(directWrite);
            fetched = true;
        }

        void whenReady() {
            CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new))
                    .whenComplete((ignored, failure) -> finish(failure));
        }

        private void finish(Throwable failure) {
            try {
                if (failure == null) {
                    copyFromBlocks();
                }
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                blocks.forEach(context.cache()::release);
            }
            if (failure != null) {
                range.fail(translate(unwrap(failure)));
                return;
            }
            if (forReader) {
                reader.markServed();
                statistics.served(range.length(), !fetched);
            }
            range.complete();
        }

        private void copyFromBlocks() {
            BlockCache cache = context.cache();
            for (Block block : blocks) {
                byte[] data = block.loaded().join();
                long start = Math.max(block.range().start(), range.offset());
                long end = Math.min(block.range().end(), range.end());
                range.buffer().put(range.indexOf(start), data, (int) (start - block.range().start()),
                        (int) (end - start));
                cache.markRead(block);
            }
        }

        private Throwable translate(Throwable cause) {
            if (cause instanceof PreconditionFailedException changed) {
                return reader.changedUnder(pinned, changed);
            }
            return cause;
        }
    }

}
