package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.List;

/**
 * What {@link RangeCoalescer} plans for one group of nearby caller ranges.
 *
 * @param span the bytes fetched, from the first range's start to the last range's end
 * @param ranges the indices of the caller ranges it carries, in object order
 * @param gapBytes bytes of the span no caller range asked for, fetched only to save requests
 * @param discardGaps whether the gap bytes exceed the discard tolerance, so are dropped once read instead of
 *     cached
 * @param parts the GETs that fetch the span, in object order: one, or even parts when the span is larger than
 *     the maximum request size
 */
public record CoalescedRequest(ByteRange span, List<Integer> ranges, long gapBytes, boolean discardGaps,
        List<RequestPart> parts) {

    public CoalescedRequest {
        ranges = List.copyOf(ranges);
        parts = List.copyOf(parts);
    }

    /** Bytes the caller asked for. */
    public long usefulBytes() {
        return span.length() - gapBytes;
    }
}
