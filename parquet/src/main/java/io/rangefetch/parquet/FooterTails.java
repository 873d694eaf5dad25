package io.rangefetch.parquet;

import java.util.OptionalLong;

/**
 * The lengths of the last {@value #REMEMBERED} Parquet footers a factory parsed (trailer included), and the tail
 * a file opened next is expected to need: the largest of them, plus a quarter and {@value #SLACK} bytes for
 * footers that grow with their statistics (longer strings, more row groups). A table's files share a schema and
 * a writer, so their footers are within a few percent of each other; a file whose footer is longer costs one
 * more GET, for exactly the rest. Thread-safe: one monitor, held only to copy a few longs.
 */
final class FooterTails {
    static final int REMEMBERED = 32;
    static final long SLACK = 1024;

    private final long[] recent = new long[REMEMBERED];
    private int count;
    private int next;

    /** A parsed footer needed this many bytes of its file's tail. */
    synchronized void record(long tailBytes) {
        if (tailBytes <= 0) {
            return;
        }
        recent[next] = tailBytes;
        next = (next + 1) % REMEMBERED;
        count = Math.min(count + 1, REMEMBERED);
    }

    /** The tail the next file is expected to need, or empty before any footer was seen. */
    synchronized OptionalLong expected() {
        if (count == 0) {
            return OptionalLong.empty();
        }
        long largest = 0;
        for (int i = 0; i < count; i++) {
            largest = Math.max(largest, recent[i]);
        }
        return OptionalLong.of(largest + largest / 4 + SLACK);
    }
}
