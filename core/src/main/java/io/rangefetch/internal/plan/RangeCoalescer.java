package io.rangefetch.internal.plan;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Plans the GETs of a vectored read: which of the caller's ranges share a request, and how a large request is
 * cut into parts. Pure: no I/O, clocks or threads, so property tests can cover it.
 *
 * <p>Why merge across gaps: on S3 a GET pays a first-byte latency of tens of milliseconds whatever its size,
 * then streams at tens of MB/s, so a gap of {@code latency × bandwidth} bytes (about 2.5 MiB at 30 ms and
 * 85 MiB/s) costs one connection the same time as another round trip, and costs no extra request. ORC's
 * {@code orc.min.disk.seek.size} and Presto's ORC reader ({@code hive.orc.max-merge-distance}) came to the same
 * finding on remote storage: reading through a gap of a few MB is cheaper than paying one more round trip.
 * Columnar readers leave those gaps to the stream (parquet-java groups only exactly adjacent column chunks).
 *
 * <p>The rules, in order:
 * <ul>
 *   <li>Empty ranges carry no bytes and cause no request.</li>
 *   <li>Ranges are taken in offset order; a range joins the request before it when the gap between them is at
 *       most {@code minSeek} bytes and the request would then span at most {@code maxMergedSize}. Greedy from
 *       the lowest offset, so the plan depends only on the set of ranges, never on their order in the input. A
 *       range larger than {@code maxMergedSize} therefore stands alone.</li>
 *   <li>Merging saves requests, but only time when the requests would otherwise queue: two ranges fetched by
 *       two GETs at once arrive sooner than by one GET that also carries the gap between them. So while the
 *       plan has fewer requests than {@code maxParallelParts} (the fetch concurrency), the merged request of
 *       the longest span is split in two at a gap of at least {@code minSplitGap}, the one that leaves the
 *       longer half shortest. A column reader's few chunks with wide gaps between them (three of twelve
 *       columns) so arrive at once and exactly, and many small ranges (an ORC stripe's streams) share as many
 *       requests of even spans as there are connections. A prefetch ({@link #coalesceAhead}) is split at every
 *       such gap: nobody waits for all of it at once, so the gap's bytes are the whole cost.</li>
 *   <li>A merged request is cut at its gaps into pieces fetched in parallel, as many as
 *       {@code maxParallelParts} and no smaller than {@code minPartSize}: merging saved round trips, and
 *       parallel connections then cut the transfer time, while the gap at each cut is not even read. A piece
 *       never splits a caller range.</li>
 *   <li>A piece larger than {@code maxRequestSize} is cut into the fewest even parts of at most that size,
 *       fetched in parallel; a caller range may span parts, and each part lists the segments it carries.</li>
 *   <li>A request whose gap bytes exceed {@code discardTolerance} × its useful bytes is flagged: its gap bytes
 *       are dropped once read rather than cached (ORC's {@code orc.min.disk.seek.size.tolerance}), so merging
 *       to save round trips cannot crowd the cache with bytes nobody asked for.</li>
 * </ul>
 *
 * <p>Thread-safe: immutable.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} makes it, and {@code internal.read} ({@code ReadEngine},
 * {@code ReadShape}) hands it to the vectored planner.
 */
public final class RangeCoalescer {
    private final CoalescerSettings settings;

    public RangeCoalescer(CoalescerSettings settings) {
        this.settings = requireNonNull(settings, "settings is null");
    }

    /** This coalescer, cutting requests into at most {@code parts} parallel parts (see the settings). */
    public RangeCoalescer withMaxParallelParts(int parts) {
        return parts == settings.maxParallelParts() ? this : new RangeCoalescer(settings.withMaxParallelParts(parts));
    }

    public CoalescerSettings settings() {
        return settings;
    }

    /**
     * The requests that fetch every byte of {@code ranges}, in object order. The caller has rejected
     * overlapping ranges already; an overlap found here is a bug and fails with an
     * {@link IllegalArgumentException}.
     */
    List<CoalescedRequest> coalesce(List<CallerRange> ranges) {
        return plan(ranges, false);
    }

    /**
     * The same for ranges nobody waits on yet (a prefetch of the row groups a column reader reads next): every
     * gap of at least {@code minSplitGap} is split, however many requests that makes. A prefetch's requests queue
     * behind reads a caller waits for and are read in order, one row group after another, so what reading through
     * a gap costs is its bytes (a column projection's unread columns), not the time to the last byte.
     */
    List<CoalescedRequest> coalesceAhead(List<CallerRange> ranges) {
        return plan(ranges, true);
    }

    private List<CoalescedRequest> plan(List<CallerRange> ranges, boolean ahead) {
        requireNonNull(ranges, "ranges is null");
        Integer[] order = sortedNonEmpty(ranges);
        List<List<Integer>> groups = new ArrayList<>();
        int groupStart = 0;
        for (int i = 1; i <= order.length; i++) {
            if (i == order.length
                    || !joins(ranges.get(order[groupStart]), ranges.get(order[i - 1]), ranges.get(order[i]))) {
                groups.add(Arrays.asList(order).subList(groupStart, i));
                groupStart = i;
            }
        }
        if (ahead) {
            splitAtEveryWideGap(ranges, groups);
        } else {
            splitForIdleConnections(ranges, groups);
        }
        List<CoalescedRequest> requests = new ArrayList<>(groups.size());
        groups.forEach(group -> requests.add(request(ranges, group)));
        return requests;
    }

    /**
     * Splits groups while there are fewer than {@code maxParallelParts}: each time the group of the longest span
     * that has a gap of at least {@code minSplitGap}, at the one such gap that leaves the longer of its two halves
     * shortest (the lowest offset among equals). A request's time grows with its span, so halving the longest
     * request first brings the last bytes soonest; splitting at an edge instead would leave a long request to
     * finish last. Groups stay in object order.
     */
    private void splitForIdleConnections(List<CallerRange> ranges, List<List<Integer>> groups) {
        while (groups.size() < settings.maxParallelParts()) {
            int longest = -1;
            long longestSpan = -1;
            for (int g = 0; g < groups.size(); g++) {
                long span = span(ranges, groups.get(g));
                if (span > longestSpan && bestSplit(ranges, groups.get(g)) > 0) {
                    longest = g;
                    longestSpan = span;
                }
            }
            if (longest < 0) {
                return;
            }
            List<Integer> group = groups.get(longest);
            int at = bestSplit(ranges, group);
            groups.set(longest, group.subList(0, at));
            groups.add(longest + 1, group.subList(at, group.size()));
        }
    }

    /** Splits every group at every gap of at least {@code minSplitGap}. Groups stay in object order. */
    private void splitAtEveryWideGap(List<CallerRange> ranges, List<List<Integer>> groups) {
        List<List<Integer>> split = new ArrayList<>();
        for (List<Integer> group : groups) {
            int start = 0;
            for (int i = 1; i < group.size(); i++) {
                if (ranges.get(group.get(i)).offset()
                                - ranges.get(group.get(i - 1)).end()
                        >= settings.minSplitGap()) {
                    split.add(group.subList(start, i));
                    start = i;
                }
            }
            split.add(group.subList(start, group.size()));
        }
        groups.clear();
        groups.addAll(split);
    }

    /**
     * Where to split {@code group}: the index of the first range of its right half, at a gap of at least
     * {@code minSplitGap} that leaves the longer half shortest; 0 when no gap qualifies.
     */
    private int bestSplit(List<CallerRange> ranges, List<Integer> group) {
        long start = ranges.get(group.get(0)).offset();
        long end = ranges.get(group.get(group.size() - 1)).end();
        int best = 0;
        long bestLonger = Long.MAX_VALUE;
        for (int i = 1; i < group.size(); i++) {
            CallerRange left = ranges.get(group.get(i - 1));
            CallerRange right = ranges.get(group.get(i));
            if (right.offset() - left.end() >= settings.minSplitGap()) {
                long longer = Math.max(left.end() - start, end - right.offset());
                if (longer < bestLonger) {
                    best = i;
                    bestLonger = longer;
                }
            }
        }
        return best;
    }

    private static long span(List<CallerRange> ranges, List<Integer> group) {
        return ranges.get(group.get(group.size() - 1)).end()
                - ranges.get(group.get(0)).offset();
    }

    /** Indices of the non-empty ranges by offset, checked to be disjoint. */
    private static Integer[] sortedNonEmpty(List<CallerRange> ranges) {
        Integer[] order = new Integer[ranges.size()];
        int count = 0;
        for (int i = 0; i < order.length; i++) {
            if (requireNonNull(ranges.get(i), "range is null").length() > 0) {
                order[count++] = i;
            }
        }
        order = Arrays.copyOf(order, count);
        Arrays.sort(order, Comparator.comparingLong(index -> ranges.get(index).offset()));
        for (int i = 1; i < order.length; i++) {
            CallerRange previous = ranges.get(order[i - 1]);
            CallerRange next = ranges.get(order[i]);
            if (next.offset() < previous.end()) {
                throw new IllegalArgumentException("Ranges overlap: " + previous.length() + " bytes at "
                        + previous.offset() + " and " + next.length() + " bytes at " + next.offset());
            }
        }
        return order;
    }

    private boolean joins(CallerRange first, CallerRange last, CallerRange next) {
        return next.offset() - last.end() <= settings.minSeek()
                && next.end() - first.offset() <= settings.maxMergedSize();
    }

    private CoalescedRequest request(List<CallerRange> ranges, List<Integer> group) {
        ByteRange span = new ByteRange(
                ranges.get(group.get(0)).offset(),
                ranges.get(group.get(group.size() - 1)).end());
        long useful = 0;
        for (int index : group) {
            useful += ranges.get(index).length();
        }
        List<RequestPart> parts = new ArrayList<>();
        long fetched = 0;
        for (List<Integer> piece : cutAtGaps(ranges, group, span)) {
            ByteRange pieceSpan = new ByteRange(
                    ranges.get(piece.get(0)).offset(),
                    ranges.get(piece.get(piece.size() - 1)).end());
            parts.addAll(parts(ranges, piece, pieceSpan));
            fetched += pieceSpan.length();
        }
        long gap = fetched - useful;
        return new CoalescedRequest(span, group, gap, gap > settings.discardTolerance() * useful, parts);
    }

    /**
     * The group's ranges in pieces of about equal span, cut where a gap lies between two ranges. A piece is cut
     * off once it reaches its share of the span and what is left still makes a piece of the minimum size.
     */
    private List<List<Integer>> cutAtGaps(List<CallerRange> ranges, List<Integer> group, ByteRange span) {
        long pieces = Math.min(settings.maxParallelParts(), span.length() / settings.minPartSize());
        if (pieces < 2 || group.size() < 2) {
            return List.of(group);
        }
        long target = (span.length() + pieces - 1) / pieces;
        List<List<Integer>> result = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < group.size() - 1; i++) {
            CallerRange last = ranges.get(group.get(i));
            CallerRange next = ranges.get(group.get(i + 1));
            if (next.offset() > last.end()
                    && last.end() - ranges.get(group.get(start)).offset() >= target
                    && span.end() - next.offset() >= settings.minPartSize()) {
                result.add(group.subList(start, i + 1));
                start = i + 1;
            }
        }
        result.add(group.subList(start, group.size()));
        return result;
    }

    /** The even parts of one piece and the caller-range segments each carries. */
    private List<RequestPart> parts(List<CallerRange> ranges, List<Integer> piece, ByteRange pieceSpan) {
        List<RequestPart> parts = new ArrayList<>();
        int next = 0;
        for (ByteRange part : EvenParts.of(pieceSpan, settings.maxRequestSize())) {
            List<RangeSegment> segments = new ArrayList<>();
            // A range ending past this part continues in the next one, so it stays current.
            for (; next < piece.size(); next++) {
                CallerRange range = ranges.get(piece.get(next));
                long start = Math.max(range.offset(), part.start());
                long end = Math.min(range.end(), part.end());
                if (start < end) {
                    segments.add(new RangeSegment(piece.get(next), new ByteRange(start, end)));
                }
                if (range.end() > part.end()) {
                    break;
                }
            }
            parts.add(new RequestPart(part, segments));
        }
        return parts;
    }
}
