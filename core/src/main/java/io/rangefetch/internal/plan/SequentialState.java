package io.rangefetch.internal.plan;

/**
 * What a stream remembers of its reads to detect sequential access and ramp its prefetch.
 *
 * @param nextExpected where the last streaming read ended (-1 before the first)
 * @param streak how many reads in a row started exactly where the previous one ended
 * @param window the current prefetch window, 0 while the stream is not sequential
 */
public record SequentialState(long nextExpected, int streak, long window) {

    public static SequentialState initial() {
        return new SequentialState(-1, 0, 0);
    }

    /** The state after a read that started at {@link #nextExpected} and ended at {@code end}. */
    public SequentialState followedBy(long end) {
        // capped: a byte-at-a-time reader of a few GB would otherwise wrap the count and lose its window
        return new SequentialState(end, streak == Integer.MAX_VALUE ? streak : streak + 1, window);
    }
}
