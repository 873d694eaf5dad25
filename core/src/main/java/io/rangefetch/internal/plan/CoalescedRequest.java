package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.List;

/**
 * What {@link RangeCoalescer} plans for one group of nearby caller ranges.
 *
 * @param span from the first range's start to the last range's end
 * @param ranges the indices of the caller ranges it carries, in object order
 * @param gapBytes bytes its parts fetch that no caller range asked for, fetched only to save requests
 * @param discardGaps whether the gap bytes exceed the discard tolerance, so are dropped once read instead of
 *     cached
 * @param parts the GETs that fetch it, in object order: one, or several when the span is larger than the
 *     maximum request size or when it is cut at gaps to be fetched in parallel
 */
record CoalescedRequest(
        ByteRange span, List<Integer> ranges, long gapBytes, boolean discardGaps, List<RequestPart> parts) {

    CoalescedRequest {
        ranges = List.copyOf(ranges);
        parts = List.copyOf(parts);
    }

    /** Bytes its parts fetch. */
    long fetchedBytes() {
        return parts.stream().mapToLong(part -> part.range().length()).sum();
    }

    /** Bytes the caller asked for. */
    long usefulBytes() {
        return fetchedBytes() - gapBytes;
    }
}
