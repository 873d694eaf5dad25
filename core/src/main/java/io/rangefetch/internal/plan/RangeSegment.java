package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;

/**
 * The bytes of one caller range that one request part carries.
 *
 * @param range the caller range's index in the list given to {@link RangeCoalescer#coalesce}
 * @param bytes where those bytes are in the object
 */
record RangeSegment(int range, ByteRange bytes) {

    /** Where these bytes go in the caller's buffer for {@code of}, the range this segment belongs to. */
    long offsetIn(CallerRange of) {
        return bytes.start() - of.offset();
    }
}
