package io.rangefetch.internal.plan;

/**
 * What a stream remembers of its reads to detect sequential access and ramp its prefetch.
 *
 * <p><b>Public because</b> {@code internal.read.StreamingState} keeps a stream's, and {@code internal.read.PlannedRead}
 * advances it.
 *
 * @param nextExpected where the last streaming read ended (-1 before the first)
 * @param streak how many reads in a row started exactly where the previous one ended
 * @param window the current prefetch window, 0 while the stream is not sequential
 * @param streakStart where the current run of reads that follow one another began: the window grows with the
 *     bytes read since
 */
public record SequentialState(long nextExpected, int streak, long window, long streakStart) {

    public static SequentialState initial() {
        return new SequentialState(-1, 0, 0, -1);
    }

    /** The state of a reader that is at {@code position} after a read that interrupted any streak. */
    public static SequentialState freshAt(long position) {
        return new SequentialState(position, 0, 0, position);
    }

    /** The same streak, now expecting the next read at {@code position}. */
    public SequentialState at(long position) {
        return new SequentialState(position, streak, window, streakStart);
    }

    /** The state after a read that started at {@link #nextExpected} and ended at {@code end}. */
    public SequentialState followedBy(long end) {
        // capped: a byte-at-a-time reader of a few GB would otherwise wrap the count and lose its window
        return new SequentialState(end, streak == Integer.MAX_VALUE ? streak : streak + 1, window, streakStart);
    }
}
