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
}
