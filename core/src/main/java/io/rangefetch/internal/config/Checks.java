package io.rangefetch.internal.config;

import java.time.Duration;

/**
 * The ranges settings are checked against; each message names the key, the bound and the value.
 *
 * <p><b>Public because</b> {@code io.rangefetch.Setting} and {@code io.rangefetch.StreamConfig} declare their settings'
 * bounds with it.
 */
public final class Checks {
    /** The range a value must be in. */
    @FunctionalInterface
    public interface Check<T> {
        /**
         * Returns the value as it is to be kept (the same value, or a normalized one: lower-cased extensions).
         *
         * @throws IllegalArgumentException naming the key and the value when the value is out of range
         */
        T check(String key, T value);
    }

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

    /** At least {@code minimum} and, unless {@code maximum} is the type's largest value, at most {@code maximum}. */
    public static <N extends Number> Check<N> range(long minimum, long maximum) {
        boolean unbounded = maximum == Long.MAX_VALUE || maximum == Integer.MAX_VALUE;
        return unbounded ? atLeast(minimum) : between(minimum, maximum);
    }

    public static <N extends Number> Check<N> between(long minimum, long maximum) {
        return (key, value) -> {
            if (value.longValue() < minimum || value.longValue() > maximum) {
                throw new IllegalArgumentException(
                        key + " must be between " + minimum + " and " + maximum + ", got " + value);
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
                throw new IllegalArgumentException(
                        key + " must be at most 1GiB (one request fills one array), got " + value);
            }
            return value;
        };
    }

    /** Anything: the parser already refuses what cannot be meant. */
    public static <T> Check<T> any() {
        return (key, value) -> value;
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
