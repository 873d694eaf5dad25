package io.rangefetch.internal.plan;

import static java.util.Objects.requireNonNull;

import java.math.BigInteger;
import java.time.Duration;

/**
 * The cost model the request sizes follow from: a GET waits {@code firstByteLatency} (L) for its first byte,
 * then one connection delivers {@code connectionBandwidth} (B) bytes per second, so n bytes take about
 * L + n / B.
 *
 * <p>Its one product, L × B, is what a connection could have moved while a new GET waits for its first byte.
 * Three sizes are measured in it: the gap a vectored read reads through rather than skip with another GET (one
 * latency's worth), the span a merged request stops growing at (a few latencies' worth), and the smallest part
 * a request is cut into for parallel connections (below one latency's worth a part waits longer than it
 * transfers). They all come from {@link #bytesIn(int)}, so the rounding is the same everywhere.
 *
 * <p>Pure and immutable. The arithmetic is exact (a floating-point product can land one byte off a whole
 * number, and the derived sizes are pinned by tests and documented to the byte).
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamConfig} and {@code io.rangefetch.EngineSettings} derive request
 * sizes from it.
 */
public record RequestCostModel(Duration firstByteLatency, long connectionBandwidth) {
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    public RequestCostModel {
        requireNonNull(firstByteLatency, "firstByteLatency is null");
        if (firstByteLatency.isNegative()) {
            throw new IllegalArgumentException("First-byte latency must not be negative, got " + firstByteLatency);
        }
        if (connectionBandwidth < 1) {
            throw new IllegalArgumentException(
                    "Connection bandwidth must be at least 1 byte per second, got " + connectionBandwidth);
        }
    }

    /**
     * The bytes one connection moves in {@code roundTrips} first-byte latencies, rounded down, and
     * {@code Long.MAX_VALUE} when there are more.
     */
    public long bytesIn(int roundTrips) {
        if (roundTrips < 0) {
            throw new IllegalArgumentException("Round trips must not be negative, got " + roundTrips);
        }
        BigInteger nanos = BigInteger.valueOf(firstByteLatency.getSeconds())
                .multiply(NANOS_PER_SECOND)
                .add(BigInteger.valueOf(firstByteLatency.getNano()));
        BigInteger bytes = nanos.multiply(BigInteger.valueOf(connectionBandwidth))
                .multiply(BigInteger.valueOf(roundTrips))
                .divide(NANOS_PER_SECOND);
        return bytes.min(LONG_MAX).longValueExact();
    }

    /**
     * The smallest part a request is cut into to be fetched over parallel connections: one latency's worth,
     * since a smaller part spends more of its time waiting than transferring, kept within the request sizes
     * (no GET is smaller than {@code minRequestSize} or larger than {@code maxRequestSize}).
     */
    public long minPartSize(long minRequestSize, long maxRequestSize) {
        if (minRequestSize > maxRequestSize) {
            throw new IllegalArgumentException(
                    "Min request size " + minRequestSize + " is above max request size " + maxRequestSize);
        }
        return Math.min(maxRequestSize, Math.max(minRequestSize, bytesIn(1)));
    }
}
