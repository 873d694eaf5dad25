package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How a GET or HEAD is tried again (see {@link RetryingSender}): at most {@code maxAttempts} sends, the first included
 * (five times as many when the failures are 503 SlowDown);
 * before each retry a wait drawn at random between 0 and {@code min(maxDelay, baseDelay × 2^(retry - 1))} ("full
 * jitter": clients throttled together spread out instead of retrying in step); no retry starts later than
 * {@code deadline} after the first attempt.
 *
 * <p><b>Public because</b> {@code io.rangefetch.EngineSettings} makes it from the configuration.
 */
public record RetrySettings(int maxAttempts, Duration baseDelay, Duration maxDelay, Duration deadline) {

    public RetrySettings {
        requireNonNull(baseDelay, "baseDelay is null");
        requireNonNull(maxDelay, "maxDelay is null");
        requireNonNull(deadline, "deadline is null");
        if (maxAttempts < 1 || baseDelay.isNegative() || maxDelay.isNegative() || deadline.isNegative()) {
            throw new IllegalArgumentException("Invalid retry settings " + this);
        }
    }

    /** One attempt, no retry. */
    public static RetrySettings none() {
        return new RetrySettings(1, Duration.ZERO, Duration.ZERO, Duration.ZERO);
    }

    /** How many 503 SlowDown answers one request outlasts: five times its other attempts. */
    int maxThrottledAttempts() {
        return maxAttempts >= Integer.MAX_VALUE / 5 ? Integer.MAX_VALUE : maxAttempts * 5;
    }

    /** The bound of the wait before retry number {@code retry} (1 for the first retry). */
    Duration delayBound(int retry) {
        int doublings = Math.min(Math.max(0, retry - 1), 30);
        long bound =
                baseDelay.toNanos() <= Long.MAX_VALUE >> doublings ? baseDelay.toNanos() << doublings : Long.MAX_VALUE;
        return Duration.ofNanos(Math.min(bound, maxDelay.toNanos()));
    }
}
