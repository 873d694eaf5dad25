package io.rangefetch.internal.config;

import io.rangefetch.internal.config.Setting.Check;
import java.time.Duration;

/** The ranges settings are checked against; each message names the key, the bound and the value. */
public final class Checks {
    /** The largest single request: one request lands in one Java array. */
    public static final long MAX_REQUEST_BYTES = 1L << 30;

    private Checks() {}

    public static <N extends Number> Check<N> atLeast(long minimum) {
        return (key, value) -> {
            if (value.longValue() < minimum) {
                throw new IllegalArgumentException(key + " must be at least " + minimum + ", got " + value);
            }
            return value;
        };
    }

    public static <N extends Number> Check<N> between(long minimum, long maximum) {
        return (key, value) -> {
            if (value.longValue() < minimum || value.longValue() > maximum) {
                throw new IllegalArgumentException(key + " must be between " + minimum + " and " + maximum
                        + ", got " + value);
            }
            return value;
        };
    }

    /** At least {@code minimum} bytes and at most {@link #MAX_REQUEST_BYTES}: a size fetched in one request. */
    public static Check<Long> requestSize(long minimum) {
        Check<Long> atLeast = atLeast(minimum);
        return (key, value) -> {
            atLeast.check(key, value);
            if (value > MAX_REQUEST_BYTES) {
                throw new IllegalArgumentException(key + " must be at most 1GiB (one request fills one array), got "
                        + value);
            }
            return value;
        };
    }

    public static Check<Duration> notNegative() {
        return (key, value) -> {
            if (value.isNegative()) {
                throw new IllegalArgumentException(key + " must not be negative, got " + value);
            }
            return value;
        };
    }

    /** A finite fraction of at least 0 (more than 1 is allowed: it is a ratio, not a share). */
    public static Check<Double> finiteFraction() {
        return (key, value) -> {
            if (!(value >= 0) || value.isInfinite()) {
                throw new IllegalArgumentException(key + " must be a finite fraction of at least 0, got " + value);
            }
            return value;
        };
    }

    /** A fraction strictly between {@code low} and {@code high}, or at them when {@code inclusive}. */
    public static Check<Double> fractionBetween(double low, double high, boolean inclusive) {
        return (key, value) -> {
            boolean inside = inclusive ? value >= low && value <= high : value > low && value < high;
            if (!inside) {
                throw new IllegalArgumentException(key + " must be " + (inclusive ? "from " : "above ") + low
                        + (inclusive ? " to " : " and below ") + high + ", got " + value);
            }
            return value;
        };
    }
}
