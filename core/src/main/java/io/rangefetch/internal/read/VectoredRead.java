package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.PreconditionFailedException;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.plan.CallerRange;
import io.rangefetch.internal.plan.CoalescedRequest;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.RangeSegment;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.RequestPart;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntToLongFunction;

/**
 * One vectored read of one pinned object version: every range's bytes fetched at once, in as few GETs as the
 * coalescing rules allow, each range handed over as soon as its own bytes are in.
 *
 * <p><b>Plan.</b> Under the object's lock (so no other reader claims the same bytes meanwhile): bytes already
 * cached or in flight are taken from there, and their in-flight fetches joined (a prefetch joined by a waiting
 * reader turns into a demand fetch). A small object ({@code read.small-object-size}) is then fetched whole, in
 * parallel parts, as any first read of it would be. Otherwise the missing pieces are coalesced (see
 * {@code RangeCoalescer}); a gap holding a block already in the cache is read through only when it is narrow
 * (at most {@code read.min-request-size}, and {@code vectored.min-seek}). Each GET of the plan claims a block for
 * its whole range, or one block per piece when its gap bytes exceed the discard tolerance or it reads through a
 * cached block, since blocks of one object never overlap (the gap bytes are then read and dropped, never cached).
 * Where the budget has no room, a GET writes straight into the caller's buffers instead.
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
    private final PinnedVersion pinned;
    private final StatisticsCounter statistics;
    private final List<VectoredRange> ranges;
    // Set for a prefetch: bytes to bring into the cache, for nobody waiting yet
    private final List<ByteRange> prefetched;
    // Whether the ranges are handed to the stream's reader (they count as served), not to its format policy
    private final boolean forReader;

    /**
     * @param prefetched for a prefetch, the bytes to bring into the cache (then {@code ranges} is empty), else
     *     {@code null}
     * @param forReader {@code false} for a format policy's own read (its footer) or a prefetch: its bytes are not
     *     served to the reader, so they neither count in the statistics nor start the version
     */
    VectoredRead(
            ObjectReader reader,
            ReaderContext context,
            PinnedVersion pinned,
            StatisticsCounter statistics,
            List<VectoredRange> ranges,
            List<ByteRange> prefetched,
            boolean forReader) {
        this.reader = requireNonNull(reader, "reader is null");
        this.context = requireNonNull(context, "context is null");
        this.pinned = requireNonNull(pinned, "pinned is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.ranges = List.copyOf(ranges);
        this.prefetched = prefetched == null ? null : List.copyOf(prefetched);
        this.forReader = forReader;
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
            union(prefetched, pinned.length()).forEach(range -> assemblies.add(new Assembly(range)));
        }
        if (assemblies.isEmpty()) {
            return;
        }
        assemblies.sort(Comparator.comparingLong(assembly -> assembly.offset));
        long objectLength = pinned.length();
        boolean small = reader.planner().isSmall(objectLength);
        try (Acquisition acquisition = reader.acquire(pinned)) {
            ReentrantLock lock = context.cache().lockFor(acquisition.id());
            lock.lock();
            try {
                long from = small ? 0 : assemblies.get(0).offset;
                long to = small ? objectLength : assemblies.get(assemblies.size() - 1).end;
                List<Block> known = context.cache().blocksOverlapping(acquisition.id(), from, to);
                List<Block> present = takeCached(acquisition, known, assemblies);
                // reading a cached block again costs at most what the smallest GET would move
                long bridge = Math.min(
                        context.coalescer().settings().minSeek(),
                        context.planner().settings().minRequestSize());
                List<List<Piece>> missing = missingPieces(present, assemblies, bridge);
                if (!missing.isEmpty()) {
                    if (small) {
                        planWholeObject(acquisition, present, assemblies, objectLength);
                    } else {
                        planFetches(acquisition, missing, present);
                    }
                }
            } finally {
                lock.unlock();
            }
            acquisition.submit();
            acquisition.handOver(); // each range releases the references it holds once it is done
        } catch (RuntimeException | Error e) {
            // planning failed: the acquisition gave back what it held; the ranges learn why
            assemblies.stream().filter(assembly -> assembly.range != null).forEach(assembly -> assembly.range.fail(e));
            throw e;
        }
        assemblies.stream().filter(assembly -> assembly.range != null).forEach(Assembly::whenReady);
    }

    /** Prefetch ranges may overlap one another: their union, within the object, as disjoint ranges by offset. */
    private static List<ByteRange> union(List<ByteRange> ranges, long objectLength) {
        List<ByteRange> sorted = ranges.stream()
                .filter(range -> range.start() < objectLength && range.length() > 0)
                .sorted(Comparator.comparingLong(ByteRange::start))
                .toList();
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
     * The known blocks to read from: each one some range needs is taken (joined if in flight, retained) once per
     * range that copies from it; one being abandoned is forgotten. Returns every block left in the index, in
     * order: those bound the coalescing.
     */
    private List<Block> takeCached(Acquisition acquisition, List<Block> known, List<Assembly> assemblies) {
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
            if (!acquisition.take(block)) {
                continue; // going away, and out of the index now: its bytes are fetched anew
            }
            for (int i = 1; i < users.size(); i++) {
                acquisition.retainAgain(block);
            }
            users.forEach(user -> user.fromBlock(block, true));
            present.add(block);
        }
        return present;
    }

    /**
     * The bytes of the ranges no present block holds, in object order, split into runs where a block lies in a
     * gap wider than {@code bridge} bytes. Within a run, one GET may read through a small block between two pieces
     * (its bytes are dropped): a column chunk whose dictionary page a filter read first still comes in one GET.
     */
    private static List<List<Piece>> missingPieces(List<Block> present, List<Assembly> assemblies, long bridge) {
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
                long pieceEnd =
                        block == null ? end : Math.min(end, block.range().start());
                long lastEnd =
                        run.isEmpty() ? cursor : run.get(run.size() - 1).bytes.end();
                if (!run.isEmpty() && cursor - lastEnd > bridge && blockBetween(present, next, lastEnd, cursor)) {
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

    // Whether a block of `blocks` (in object order, disjoint) overlaps `range`.
    private static boolean overlapsAny(List<Block> blocks, ByteRange range) {
        int first = firstEndingAfter(blocks.size(), i -> blocks.get(i).range().end(), range.start());
        return first < blocks.size() && blocks.get(first).range().start() < range.end();
    }

    /** Of {@code count} disjoint spans in order, whose ends are {@code endOf}, the first ending after {@code offset}. */
    private static int firstEndingAfter(int count, IntToLongFunction endOf, long offset) {
        int low = 0;
        int high = count;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (endOf.applyAsLong(middle) <= offset) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /**
     * Coalesces each run and claims the blocks its GETs fill. A GET that reads through a present block claims
     * only its pieces, as one whose gap bytes are dropped: blocks of one object never overlap.
     */
    private void planFetches(Acquisition acquisition, List<List<Piece>> runs, List<Block> present) {
        for (List<Piece> run : runs) {
            List<CallerRange> pieces = run.stream()
                    .map(piece -> new CallerRange(piece.bytes.start(), piece.bytes.length()))
                    .toList();
            RangeCoalescer coalescer = context.coalescer()
                    .withMaxParallelParts(context.partsAffordable(
                            context.coalescer().settings().maxParallelParts()));
            List<CoalescedRequest> requests =
                    isPrefetch() ? coalescer.coalesceAhead(pieces) : coalescer.coalesce(pieces);
            for (CoalescedRequest request : requests) {
                boolean discardGaps = request.discardGaps() || overlapsAny(present, request.span());
                for (RequestPart part : request.parts()) {
                    if (isPrefetch()) {
                        claimPrefetch(acquisition, part, discardGaps);
                    } else {
                        claimTargets(acquisition, part, run, discardGaps);
                    }
                }
            }
        }
    }

    /**
     * A small object is fetched whole on a read that misses, as a streaming or positioned read would fetch it:
     * every stretch no present block holds, in parallel parts, whatever the ranges asked for.
     */
    private void planWholeObject(
            Acquisition acquisition, List<Block> present, List<Assembly> assemblies, long objectLength) {
        ReadPlanner planner = reader.planner()
                .withSmallObjectParts(
                        context.partsAffordable(reader.planner().settings().prefetchParallelism()));
        long cursor = 0;
        for (int i = 0; i <= present.size(); i++) {
            long stretchEnd = i < present.size() ? present.get(i).range().start() : objectLength;
            if (stretchEnd > cursor) {
                for (ByteRange part : planner.splitSmall(new ByteRange(cursor, stretchEnd))) {
                    claimWholePart(acquisition, part, assemblies);
                }
            }
            if (i < present.size()) {
                cursor = Math.max(cursor, present.get(i).range().end());
            }
        }
    }

    private void claimWholePart(Acquisition acquisition, ByteRange part, List<Assembly> assemblies) {
        // a prefetch's own assemblies wait for nothing: only a reader's ranges use the part
        List<Assembly> users = overlapping(assemblies, part).stream()
                .filter(user -> user.range != null)
                .toList();
        RangeFetch fetch = acquisition.newFetch(part, isPrefetch());
        Block block = acquisition.claimFor(fetch, part, isPrefetch(), false);
        for (Assembly user : users) {
            if (block != null) {
                acquisition.retainAgain(block);
                user.fromBlock(block, false);
            } else {
                direct(fetch, user, new ByteRange(Math.max(part.start(), user.offset), Math.min(part.end(), user.end)));
            }
        }
        // with no room and nobody asking for these bytes, the GET carries nothing: Acquisition.submit drops it
    }

    /**
     * Claims prefetch blocks for one part: the whole part, or one block per segment when the gap bytes are to be
     * dropped. Where the budget has no room for a prefetch, those bytes are simply not fetched.
     */
    private void claimPrefetch(Acquisition acquisition, RequestPart part, boolean discardGaps) {
        if (!discardGaps) {
            acquisition.claim(part.range(), true);
            return;
        }
        // one GET for the blocks that find room; it then spans only them (see RangeFetch.submit)
        RangeFetch fetch = acquisition.newFetch(part.range(), true);
        for (RangeSegment segment : part.segments()) {
            acquisition.claimFor(fetch, segment.bytes(), true, false);
        }
    }

    /** Bytes of {@code assembly}'s range that {@code fetch} writes straight into its buffer. */
    private static void direct(RangeFetch fetch, Assembly assembly, ByteRange segment) {
        boolean first = !assembly.writtenBy.contains(fetch);
        fetch.direct(segment, assembly.range.buffer(), assembly.range.indexOf(segment.start()));
        if (first) {
            assembly.writtenBy.add(fetch);
            assembly.waitFor(fetch.directWrites());
        }
    }

    private void claimTargets(Acquisition acquisition, RequestPart part, List<Piece> run, boolean discardGaps) {
        RangeFetch fetch = acquisition.newFetch(part.range(), false);
        Block whole = discardGaps ? null : acquisition.claimFor(fetch, part.range(), false, false);
        for (RangeSegment segment : part.segments()) {
            Assembly assembly = run.get(segment.range()).assembly;
            Block target = whole;
            if (target == null && discardGaps) {
                target = acquisition.claimFor(fetch, segment.bytes(), false, false);
            }
            if (target == null) {
                direct(fetch, assembly, segment.bytes());
                continue;
            }
            acquisition.retainAgain(target);
            assembly.fromBlock(target, false);
        }
    }

    private static List<Assembly> overlapping(List<Assembly> assemblies, ByteRange bytes) {
        List<Assembly> result = new ArrayList<>(1);
        int first = firstEndingAfter(assemblies.size(), i -> assemblies.get(i).end, bytes.start());
        for (int i = first; i < assemblies.size() && assemblies.get(i).offset < bytes.end(); i++) {
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
        // the GETs that write straight into this range's buffer
        private final List<RangeFetch> writtenBy = new ArrayList<>(1);
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
            Throwable failed = failure == null ? null : translate(unwrap(failure));
            if (failed == null && forReader) {
                statistics.served(range.length(), !fetched);
            }
            // the caller's callbacks may read again: they run once this fetch has given its slot back
            context.scheduler().afterSlot(() -> {
                if (failed != null) {
                    range.fail(failed);
                } else {
                    range.complete();
                }
            });
        }

        private void copyFromBlocks() {
            var cache = context.cache();
            for (Block block : blocks) {
                byte[] data = block.loaded().getNow(null); // loaded: this runs once every wait completed
                long start = Math.max(block.range().start(), range.offset());
                long end = Math.min(block.range().end(), range.end());
                range.buffer()
                        .put(
                                range.indexOf(start),
                                data,
                                (int) (start - block.range().start()),
                                (int) (end - start));
                cache.markRead(block);
            }
        }

        private Throwable translate(Throwable cause) {
            if (cause instanceof PreconditionFailedException changed) {
                return reader.changedUnder(pinned, forReader, changed);
            }
            return cause;
        }
    }
}
