package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.testing.proxy.NetworkModel;
import java.time.Duration;
import java.util.Optional;

/**
 * An ideal time for a workload on a modelled network: the round trips that must wait for an earlier answer,
 * each costing the model's first-byte delay, plus the needed bytes at the best rate {@code connections}
 * parallel connections reach:
 *
 * <pre>
 *   ideal = roundTrips × firstByteDelay + neededBytes / min(totalRate, connections × connectionRate)
 * </pre>
 *
 * Where a workload's reads are independent, {@code connections} is {@value #PARALLEL_CONNECTIONS}, a number
 * of parallel GETs an S3 client comfortably runs; where each read waits for the previous one (positioned
 * reads in a loop), it is the number of threads reading. Nothing real reaches it: requests have headers,
 * readers must learn a file's layout before they can read it. It says how far from the network's limit a
 * reader is, and it is not meaningful on an unshaped network (every term is near zero there).
 */
public record LowerBound(int roundTrips, int connections) {

    /** Parallel connections assumed for reads that do not depend on each other. */
    public static final int PARALLEL_CONNECTIONS = 16;

    public LowerBound {
        if (roundTrips < 0 || connections <= 0) {
            throw new IllegalArgumentException(
                    "bad bound: " + roundTrips + " round trips, " + connections + " connections");
        }
    }

    /** Independent reads: {@code roundTrips} dependent steps, bytes over {@value #PARALLEL_CONNECTIONS}. */
    public static LowerBound parallel(int roundTrips) {
        return new LowerBound(roundTrips, PARALLEL_CONNECTIONS);
    }

    /** The formula with this bound's numbers, for the report. */
    public String formula() {
        return roundTrips + " × first-byte delay + needed bytes / min(total rate, " + connections
                + " × connection rate)";
    }

    /** The ideal time on {@code model}; empty when the model adds no delay and caps no rate. */
    public Optional<Duration> time(NetworkModel model, long neededBytes) {
        requireNonNull(model, "model is null");
        double rate = Math.min(rate(model.totalBytesPerSecond()), connections * rate(model.connectionBytesPerSecond()));
        double delaySeconds = model.firstByteDelay().toNanos() / 1e9;
        if (delaySeconds == 0 && Double.isInfinite(rate)) {
            return Optional.empty();
        }
        double seconds = roundTrips * delaySeconds + neededBytes / rate;
        return Optional.of(Duration.ofNanos(Math.round(seconds * 1e9)));
    }

    // a model states "no cap" as a non-positive or maximal rate
    private static double rate(long bytesPerSecond) {
        return bytesPerSecond <= 0 || bytesPerSecond == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : bytesPerSecond;
    }
}
