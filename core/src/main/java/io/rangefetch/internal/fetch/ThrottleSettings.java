package io.rangefetch.internal.fetch;

/**
 * How each bucket's {@link ThrottleGovernor} moves its limit: between {@code minConcurrency} and
 * {@code maxConcurrency}, up by {@code increaseStep} after a round of answers without a 503, multiplied by
 * {@code decreaseFactor} on a 503, starting at {@code initialConcurrency}; with {@code testsNoise}, each decrease
 * tests whether the 503s track the load ({@link LoadTestedLimit}). Off, no governor limits anything.
 *
 * <p><b>Public because</b> {@code io.rangefetch.EngineSettings} makes it from the configuration, and
 * {@code internal.read.Resilience} carries it.
 */
public record ThrottleSettings(
        boolean enabled,
        int minConcurrency,
        int maxConcurrency,
        int initialConcurrency,
        int increaseStep,
        double decreaseFactor,
        boolean testsNoise) {

    public ThrottleSettings {
        if (minConcurrency < 1
                || maxConcurrency < minConcurrency
                || increaseStep < 1
                || !(decreaseFactor > 0 && decreaseFactor < 1)) {
            throw new IllegalArgumentException("Invalid throttle settings " + this);
        }
        initialConcurrency = Math.max(minConcurrency, Math.min(maxConcurrency, initialConcurrency));
    }

    /** No governor: every request is sent at once. */
    public static ThrottleSettings off() {
        return new ThrottleSettings(false, 1, 1, 1, 1, 0.5, false);
    }
}
