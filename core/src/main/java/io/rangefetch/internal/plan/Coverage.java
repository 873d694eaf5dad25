package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A set of disjoint byte ranges (what is cached or planned) with the queries the planner asks of it. */
final class Coverage {
    private final TreeMap<Long, Long> endByStart = new TreeMap<>();

    Coverage(Collection<ByteRange> ranges) {
        ranges.forEach(this::add);
    }

    void add(ByteRange range) {
        Map.Entry<Long, Long> before = endByStart.floorEntry(range.start());
        if (before != null && before.getValue() > range.start()) {
            throw new IllegalArgumentException(
                    "Range " + range + " overlaps [" + before.getKey() + ", " + before.getValue() + ")");
        }
        Long after = endByStart.ceilingKey(range.start());
        if (after != null && after < range.end()) {
            throw new IllegalArgumentException("Range " + range + " overlaps a range starting at " + after);
        }
        endByStart.put(range.start(), range.end());
    }

    /** The uncovered parts of {@code [from, to)}, in order. */
    List<ByteRange> gaps(long from, long to) {
        List<ByteRange> gaps = new ArrayList<>();
        long cursor = from;
        Map.Entry<Long, Long> before = endByStart.floorEntry(from);
        if (before != null && before.getValue() > cursor) {
            cursor = before.getValue();
        }
        for (Map.Entry<Long, Long> range :
                endByStart.subMap(from, true, to, false).entrySet()) {
            if (range.getKey() > cursor) {
                gaps.add(new ByteRange(cursor, range.getKey()));
            }
            cursor = Math.max(cursor, range.getValue());
        }
        if (cursor < to) {
            gaps.add(new ByteRange(cursor, to));
        }
        return gaps;
    }

    /** The first position at or after {@code from}, and before {@code limit}, that no range covers; else limit. */
    long firstUncovered(long from, long limit) {
        List<ByteRange> gaps = gaps(from, limit);
        return gaps.isEmpty() ? limit : gaps.get(0).start();
    }

    /** End of the nearest range that ends at or before {@code position}, or 0. */
    long previousEnd(long position) {
        Map.Entry<Long, Long> before = endByStart.floorEntry(position);
        return before == null ? 0 : Math.min(before.getValue(), position);
    }

    /** Start of the nearest range that starts at or after {@code position}, or {@code limit}. */
    long nextStart(long position, long limit) {
        Long after = endByStart.ceilingKey(position);
        return after == null ? limit : Math.min(after, limit);
    }
}
