package io.rangefetch.testing.proxy;

import java.util.function.LongSupplier;

/**
 * S3's request-rate limit per prefix as the proxy models it: a bucket of {@code burst} requests,
 * refilled at {@code requestsPerSecond}; a request that finds it empty is refused and takes nothing.
 *
 * <p>The {@link TokenBucket} under it counts thousandths of a request, so a fractional rate (one request
 * every two seconds) is kept exactly to a thousandth of a request per second. Thread-safe.
 */
final class RequestRateLimit {

    /** Above this a limit means nothing for a proxy on loopback; and the bucket's arithmetic stays in a long. */
    static final double MAX_REQUESTS_PER_SECOND = 1_000_000;

    static final int MAX_BURST = 1_000_000;

    private static final long UNITS_PER_REQUEST = 1_000;

    private final double requestsPerSecond;
    private final int burst;
    private final TokenBucket bucket;

    /**
     * @throws IllegalArgumentException if {@code requestsPerSecond} is not in (0, {@value
     *     #MAX_REQUESTS_PER_SECOND}] or {@code burst} not in 1..{@value #MAX_BURST}
     */
    RequestRateLimit(double requestsPerSecond, int burst, LongSupplier nanoClock) {
        if (!(requestsPerSecond > 0 && requestsPerSecond <= MAX_REQUESTS_PER_SECOND)) {
            throw new IllegalArgumentException(
                    "requestsPerSecond must be in (0, " + MAX_REQUESTS_PER_SECOND + "]: " + requestsPerSecond);
        }
        if (burst < 1 || burst > MAX_BURST) {
            throw new IllegalArgumentException("burst must be in 1.." + MAX_BURST + ": " + burst);
        }
        this.requestsPerSecond = requestsPerSecond;
        this.burst = burst;
        long unitsPerSecond = Math.max(1, Math.round(requestsPerSecond * UNITS_PER_REQUEST));
        this.bucket = new TokenBucket(unitsPerSecond, burst * UNITS_PER_REQUEST, nanoClock);
    }

    /** Takes one request's token; false, taking nothing, if none is left. */
    boolean tryAcquire() {
        return bucket.tryTake(UNITS_PER_REQUEST);
    }

    @Override
    public String toString() {
        return requestsPerSecond + " requests/s, burst " + burst;
    }
}
