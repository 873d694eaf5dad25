package io.rangefetch.benchmarks.run;

import static java.util.Objects.requireNonNull;

import io.rangefetch.testing.proxy.Fault;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * What the proxy does to a timed run's requests besides modelling the network: faults drawn at random, at
 * most one per GET, from a seed, and a limit on the request rate above which it answers {@code 503 SlowDown}.
 * {@link #NONE} for a clean run. The runner gives the n-th run of every row the seed {@link #forRun(int)}: runs
 * of a row meet different draws (one fixed draw could spare a workload of few GETs every time), and every
 * reader meets the same ones.
 *
 * @param probabilities each fault's chance per GET, in {@link Fault} order
 * @param firstByteDelay how long a {@link Fault#FIRST_BYTE_DELAY} holds a response's head back
 */
public record FaultPlan(
        Map<Fault, Double> probabilities, long seed, Duration firstByteDelay, Optional<RateLimit> rateLimit) {

    /** What a draw's faults default to when the plan does not say. */
    public static final Duration DEFAULT_FIRST_BYTE_DELAY = Duration.ofSeconds(2);

    /** The seed of a row's first run; later runs count up from it. */
    public static final long SEED = 20261123;

    public static final FaultPlan NONE = new FaultPlan(Map.of(), SEED, DEFAULT_FIRST_BYTE_DELAY, Optional.empty());

    public FaultPlan {
        EnumMap<Fault, Double> copy = new EnumMap<>(Fault.class);
        double sum = 0;
        for (Map.Entry<Fault, Double> entry :
                requireNonNull(probabilities, "probabilities is null").entrySet()) {
            double probability = requireNonNull(entry.getValue(), "probability is null");
            if (!(probability > 0 && probability <= 1)) {
                throw new IllegalArgumentException(
                        entry.getKey() + ": a probability must be in (0, 1], not " + probability);
            }
            copy.put(entry.getKey(), probability);
            sum += probability;
        }
        if (sum > 1) {
            throw new IllegalArgumentException("the probabilities add up to more than 1: " + copy);
        }
        probabilities = Collections.unmodifiableMap(copy);
        requireNonNull(firstByteDelay, "firstByteDelay is null");
        requireNonNull(rateLimit, "rateLimit is null");
    }

    /** {@code fault} on a {@code probability} of the GETs, with {@link #SEED}. */
    public static FaultPlan random(Fault fault, double probability) {
        return new FaultPlan(Map.of(fault, probability), SEED, DEFAULT_FIRST_BYTE_DELAY, Optional.empty());
    }

    /** GETs and HEADs above {@code limit} answered {@code 503 SlowDown}. */
    public static FaultPlan rateLimited(RateLimit limit) {
        return new FaultPlan(Map.of(), SEED, DEFAULT_FIRST_BYTE_DELAY, Optional.of(limit));
    }

    /** This plan with the seed of a row's {@code run}-th run (0 for the first, warm-ups included). */
    public FaultPlan forRun(int run) {
        return new FaultPlan(probabilities, SEED + run, firstByteDelay, rateLimit);
    }

    public boolean isNone() {
        return probabilities.isEmpty() && rateLimit.isEmpty();
    }

    /** For reports, e.g. "10% of GETs answered 503 SlowDown". */
    public String describe() {
        if (isNone()) {
            return "no faults";
        }
        StringJoiner parts = new StringJoiner("; ");
        probabilities.forEach((fault, probability) -> parts.add(percent(probability) + " of GETs " + effect(fault)));
        rateLimit.ifPresent(
                limit -> parts.add("GETs and HEADs above " + limit.describe() + " answered 503 SlowDown by the proxy"));
        return parts.toString();
    }

    private String effect(Fault fault) {
        return switch (fault) {
            case SLOW_DOWN_503 -> "answered 503 SlowDown by the proxy";
            case SERVER_ERROR_500 -> "answered 500 InternalError by the proxy";
            case RESET_MID_BODY -> "reset half way through the body";
            case TRUNCATED_BODY -> "cut short half way through the body";
            case FIRST_BYTE_DELAY -> "held back " + seconds(firstByteDelay) + " before their first byte";
        };
    }

    private static String percent(double probability) {
        double percent = probability * 100;
        return percent == Math.rint(percent)
                ? String.format(Locale.ROOT, "%.0f%%", percent)
                : String.format(Locale.ROOT, "%s%%", percent);
    }

    private static String seconds(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }

    /**
     * A request-rate limit: a bucket of {@code burst} requests refilled at {@code requestsPerSecond}, as S3
     * limits the requests per prefix.
     */
    public record RateLimit(double requestsPerSecond, int burst) {

        public RateLimit {
            if (!(requestsPerSecond > 0) || Double.isInfinite(requestsPerSecond)) {
                throw new IllegalArgumentException(
                        "a rate limit must be a positive number of requests per second, " + "not " + requestsPerSecond);
            }
            if (burst < 1) {
                throw new IllegalArgumentException("a rate limit's burst must be at least 1 request, not " + burst);
            }
        }

        public String describe() {
            return String.format(Locale.ROOT, "%s requests/s (burst %d)", number(requestsPerSecond), burst);
        }

        private static String number(double value) {
            return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
        }
    }
}
