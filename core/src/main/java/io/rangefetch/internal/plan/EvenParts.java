package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a range into the fewest parts of at most a maximum size, as even as bytes allow (sizes differ by at most
 * one byte). Even parts finish together when fetched in parallel, and each is at least half the maximum, so a
 * split never produces a part below the minimum request size ({@code max >= 2 * min}).
 */
final class EvenParts {

    private EvenParts() {}

    static List<ByteRange> of(ByteRange range, long maxPartSize) {
        return inParts(range, (range.length() + maxPartSize - 1) / maxPartSize);
    }

    /** Cuts a non-empty range into {@code parts} parts whose sizes differ by at most one byte. */
    static List<ByteRange> inParts(ByteRange range, long parts) {
        if (parts < 1 || parts > range.length()) {
            throw new IllegalArgumentException("Cannot cut " + range + " into " + parts + " parts");
        }
        List<ByteRange> result = new ArrayList<>((int) parts);
        long base = range.length() / parts;
        long remainder = range.length() % parts;
        long start = range.start();
        for (long i = 0; i < parts; i++) {
            long size = base + (i < remainder ? 1 : 0);
            result.add(ByteRange.ofLength(start, size));
            start += size;
        }
        return result;
    }
}
