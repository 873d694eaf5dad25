package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.List;

/**
 * One GET of a coalesced request: a range of at most the maximum request size and the caller-range segments in
 * it, in object order. Bytes of the part that no segment covers are gap bytes.
 */
record RequestPart(ByteRange range, List<RangeSegment> segments) {

    RequestPart {
        segments = List.copyOf(segments);
    }
}
