package io.rangefetch.internal.plan;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.plan.FetchPlan.PlannedBlock;
import io.rangefetch.internal.plan.FetchPlan.PlannedGet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;

/**
 * Plans a vectored read or a prefetch against what the cache holds: which bytes are fetched, in which GETs, and
 * which blocks each GET fills. Pure: the cache's blocks and the idle connections are given to it.
 *
 * <p><b>Small objects</b> ({@code read.small-object-size}) are fetched whole on a read that misses, as any first
 * read of them would be: every stretch no cached block holds, in parallel parts, whatever the ranges asked for.
 *
 * <p><b>Gaps holding a cached block.</b> Otherwise the missing pieces of the wanted ranges are coalesced
 * ({@link RangeCoalescer}); a gap holding a block already in the cache is read through only when it is narrow (at
 * most {@code read.min-request-size} and {@code vectored.min-seek}: reading a cached block again costs at most what
 * the smallest GET would move). A column chunk whose dictionary page a filter read first so still comes in one
 * GET.
 *
 * <p><b>Whole or per piece.</b> Each GET claims one block for its whole range, or one block per piece when its gap
 * bytes exceed the discard tolerance or it reads through a cached block, since blocks of one object never overlap
 * (the gap bytes are then read and dropped, never cached).
 *
 * <p>Thread-safe: immutable.
 *
 * <p><b>Public because</b> {@code internal.read}'s {@code VectoredRead} plans with it, and {@code ObjectRead} and
 * {@code ReadShape} use it.
 */
public final class VectoredPlanner {
    private final ReadPlanner planner;
    private final RangeCoalescer coalescer;

    /**
     * @param planner the stream's planner: which objects are small, and the parts they are read in
     * @param coalescer the factory's coalescer
     */
    public VectoredPlanner(ReadPlanner planner, RangeCoalescer coalescer) {
        this.planner = requireNonNull(planner, "planner is null");
        this.coalescer = requireNonNull(coalescer, "coalescer is null");
    }

    /** Prefetch ranges may overlap one another: their union, within the object, as disjoint ranges by offset. */
    public static List<ByteRange> union(List<ByteRange> ranges, long objectLength) {
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
     * Where the cache is looked up for {@code wanted} (non-empty, sorted, disjoint, non-empty ranges): the whole of a
     * small object, else from the first wanted byte to the last.
     */
    public ByteRange lookupWindow(List<ByteRange> wanted, long objectLength) {
        return planner.isSmall(objectLength)
                ? new ByteRange(0, objectLength)
                : new ByteRange(
                        wanted.get(0).start(), wanted.get(wanted.size() - 1).end());
    }

    /**
     * The GETs that fetch every byte of {@code wanted} that no block of {@code present} holds.
     *
     * @param wanted the ranges asked for: sorted, disjoint, none empty, inside the object
     * @param present the blocks of the {@linkplain #lookupWindow lookup window} in the cache: sorted, disjoint
     * @param prefetch whether nobody waits for the bytes: then no block has readers
     * @param partsAffordable how many parallel parts a request may be cut into now, at most the given cap
     */
    public FetchPlan plan(
            List<ByteRange> wanted,
            List<ByteRange> present,
            long objectLength,
            boolean prefetch,
            IntUnaryOperator partsAffordable) {
        long bridge =
                Math.min(coalescer.settings().minSeek(), planner.settings().minRequestSize());
        List<List<Piece>> runs = missingPieces(present, wanted, bridge);
        if (runs.isEmpty()) {
            return FetchPlan.NOTHING;
        }
        List<PlannedGet> gets = new ArrayList<>();
        if (planner.isSmall(objectLength)) {
            planWholeObject(gets, wanted, present, objectLength, prefetch, partsAffordable);
        } else {
            for (List<Piece> run : runs) {
                planRun(gets, run, present, prefetch, partsAffordable);
            }
        }
        return new FetchPlan(gets, false);
    }

    /**
     * The bytes of the wanted ranges no present block holds, in object order, split into runs where a block lies in
     * a gap wider than {@code bridge} bytes. Within a run, one GET may read through a small block between pieces.
     */
    private static List<List<Piece>> missingPieces(List<ByteRange> present, List<ByteRange> wanted, long bridge) {
        List<List<Piece>> runs = new ArrayList<>();
        List<Piece> run = new ArrayList<>();
        int next = 0; // first present block that may still lie at or after the cursor
        for (int index = 0; index < wanted.size(); index++) {
            long cursor = wanted.get(index).start();
            long end = wanted.get(index).end();
            while (cursor < end) {
                while (next < present.size() && present.get(next).end() <= cursor) {
                    next++;
                }
                ByteRange block = next < present.size() ? present.get(next) : null;
                if (block != null && block.start() <= cursor) {
                    cursor = block.end(); // held by this block
                    continue;
                }
                long pieceEnd = block == null ? end : Math.min(end, block.start());
                long lastEnd =
                        run.isEmpty() ? cursor : run.get(run.size() - 1).bytes.end();
                if (!run.isEmpty() && cursor - lastEnd > bridge && blockBetween(present, next, lastEnd, cursor)) {
                    runs.add(run);
                    run = new ArrayList<>();
                }
                run.add(new Piece(index, new ByteRange(cursor, pieceEnd)));
                cursor = pieceEnd;
            }
        }
        if (!run.isEmpty()) {
            runs.add(run);
        }
        return runs;
    }

    // Whether a present block lies in [from, to); blocks before `next` end at or before `to`.
    private static boolean blockBetween(List<ByteRange> present, int next, long from, long to) {
        for (int i = next - 1; i >= 0; i--) {
            ByteRange range = present.get(i);
            if (range.end() <= from) {
                return false;
            }
            if (range.start() < to) {
                return true;
            }
        }
        return false;
    }

    /** Coalesces one run; a GET that reads through a present block claims only its pieces. */
    private void planRun(
            List<PlannedGet> gets,
            List<Piece> run,
            List<ByteRange> present,
            boolean prefetch,
            IntUnaryOperator partsAffordable) {
        List<CallerRange> pieces = run.stream()
                .map(piece -> new CallerRange(piece.bytes.start(), piece.bytes.length()))
                .toList();
        RangeCoalescer runCoalescer = coalescer.withMaxParallelParts(
                partsAffordable.applyAsInt(coalescer.settings().maxParallelParts()));
        List<CoalescedRequest> requests = prefetch ? runCoalescer.coalesceAhead(pieces) : runCoalescer.coalesce(pieces);
        for (CoalescedRequest request : requests) {
            boolean discardGaps = request.discardGaps() || overlapsAny(present, request.span());
            for (RequestPart part : request.parts()) {
                List<PlannedBlock> blocks = new ArrayList<>();
                if (discardGaps) {
                    for (RangeSegment segment : part.segments()) {
                        blocks.add(new PlannedBlock(
                                segment.bytes(), prefetch ? List.of() : List.of(run.get(segment.range()).wanted)));
                    }
                } else {
                    List<Integer> readers = prefetch
                            ? List.of()
                            : part.segments().stream()
                                    .map(segment -> run.get(segment.range()).wanted)
                                    .toList();
                    blocks.add(new PlannedBlock(part.range(), readers));
                }
                if (!blocks.isEmpty()) { // a part cut out of a gap, whose bytes are dropped, is not fetched at all
                    gets.add(new PlannedGet(part.range(), prefetch, blocks));
                }
            }
        }
    }

    /** Every stretch of a small object no present block holds, in parallel parts of one block each. */
    private void planWholeObject(
            List<PlannedGet> gets,
            List<ByteRange> wanted,
            List<ByteRange> present,
            long objectLength,
            boolean prefetch,
            IntUnaryOperator partsAffordable) {
        ReadPlanner parts = planner.withSmallObjectParts(
                partsAffordable.applyAsInt(planner.settings().prefetchParallelism()));
        long cursor = 0;
        for (int i = 0; i <= present.size(); i++) {
            long stretchEnd = i < present.size() ? present.get(i).start() : objectLength;
            if (stretchEnd > cursor) {
                for (ByteRange part : parts.splitSmall(new ByteRange(cursor, stretchEnd))) {
                    // a prefetch's bytes are for nobody: only a reader's ranges use the part
                    List<Integer> readers = prefetch ? List.of() : overlapping(wanted, part);
                    gets.add(new PlannedGet(part, prefetch, List.of(new PlannedBlock(part, readers))));
                }
            }
            if (i < present.size()) {
                cursor = Math.max(cursor, present.get(i).end());
            }
        }
    }

    // Whether a range of `ranges` (in object order, disjoint) overlaps `range`.
    private static boolean overlapsAny(List<ByteRange> ranges, ByteRange range) {
        int first = firstEndingAfter(ranges.size(), i -> ranges.get(i).end(), range.start());
        return first < ranges.size() && ranges.get(first).start() < range.end();
    }

    /** The indices of the ranges of {@code ranges} (in object order, disjoint) overlapping {@code bytes}. */
    public static List<Integer> overlapping(List<ByteRange> ranges, ByteRange bytes) {
        List<Integer> result = new ArrayList<>(1);
        int first = firstEndingAfter(ranges.size(), i -> ranges.get(i).end(), bytes.start());
        for (int i = first; i < ranges.size() && ranges.get(i).start() < bytes.end(); i++) {
            result.add(i);
        }
        return result;
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

    /** Bytes of one wanted range (by index) that must be fetched. */
    private record Piece(int wanted, ByteRange bytes) {}
}
