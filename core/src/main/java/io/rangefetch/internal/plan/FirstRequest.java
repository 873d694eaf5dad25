package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;

/**
 * The request that learns an object's ETag (and its length, from {@code Content-Range}): an explicit range, or
 * a suffix of {@code suffixLength} bytes when the tail is wanted and the length is not known.
 *
 * <p><b>Public because</b> {@code internal.read.FirstFetch} sends the request the planner shapes.
 */
public record FirstRequest(ByteRange range, long suffixLength) {

    public FirstRequest {
        if ((range == null) == (suffixLength <= 0)) {
            throw new IllegalArgumentException("Give either a range or a positive suffix length");
        }
    }
}
