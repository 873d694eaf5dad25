package io.rangefetch.testing.proxy;

import java.util.function.LongSupplier;

/**
 * A rate cap with a small burst allowance, in units of whatever it caps (bytes for bandwidth,
 * thousandths of a request for {@link RequestRateLimit}), kept as a virtual schedule (the "generic cell
 * rate algorithm") rather than a token count: {@code nextFree} is when the units taken so far would
 * have left at exactly the cap. Taking units moves it on by their cost; the bucket stays no more than
 * {@code burst} units ahead of the cap.
 *
 * <p>Two ways to take: {@link #reserve(long)} always takes and answers how long the caller must wait
 * (bandwidth: the bytes go, late), and {@link #tryTake(long)} takes only what needs no wait and leaves
 * the schedule alone otherwise (a request refused is not charged, as S3's request rates are not).
 *
 * <p>It never sleeps itself, so the arithmetic is tested without a clock that moves; the caller sleeps
 * for the answer. Sleeping late is harmless: the schedule is absolute, so the next reservation waits
 * less, within the burst allowance. Reservations are served in call order, which makes one bucket
 * shared by several connections split the rate fairly. Thread-safe.
 */
final class TokenBucket {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long unitsPerSecond;
    private final long burstUnits;
    private final long burstNanos;
    private final LongSupplier nanoClock;
    private long nextFree; // guarded by this; a System.nanoTime() value, compared by difference only

    TokenBucket(long unitsPerSecond, long burstUnits, LongSupplier nanoClock) {
        if (unitsPerSecond <= 0) {
            throw new IllegalArgumentException("unitsPerSecond must be positive: " + unitsPerSecond);
        }
        // a burst's cost in nanoseconds must fit a long (nanosFor multiplies first)
        if (burstUnits <= 0 || burstUnits > Long.MAX_VALUE / NANOS_PER_SECOND) {
            throw new IllegalArgumentException(
                    "burstUnits must be in 1.." + Long.MAX_VALUE / NANOS_PER_SECOND + ": " + burstUnits);
        }
        this.unitsPerSecond = unitsPerSecond;
        this.burstUnits = burstUnits;
        this.burstNanos = nanosFor(burstUnits);
        this.nanoClock = nanoClock;
        this.nextFree = nanoClock.getAsLong(); // starts full: a burst may leave at once
    }

    long unitsPerSecond() {
        return unitsPerSecond;
    }

    /**
     * Reserves {@code units} (at most the burst) and returns the nanoseconds to wait before spending
     * them; 0 while within the burst allowance.
     */
    synchronized long reserve(long units) {
        long now = nanoClock.getAsLong();
        nextFree = scheduleEnd(units, now);
        return Math.max(0, nextFree - now - burstNanos);
    }

    /** Takes {@code units} (at most the burst) if that needs no wait; otherwise takes nothing. */
    synchronized boolean tryTake(long units) {
        long now = nanoClock.getAsLong();
        long end = scheduleEnd(units, now);
        if (end - now - burstNanos > 0) {
            return false;
        }
        nextFree = end;
        return true;
    }

    /** Where the schedule would end if {@code units} were taken at {@code now}. Caller holds the lock. */
    private long scheduleEnd(long units, long now) {
        if (units <= 0 || units > burstUnits) {
            throw new IllegalArgumentException("units must be in 1.." + burstUnits + ": " + units);
        }
        // idle time earns credit, but never more than the burst
        long start = nextFree - now < 0 ? now : nextFree;
        return start + nanosFor(units);
    }

    private long nanosFor(long units) {
        // units stay at most the burst, which the constructor keeps below Long.MAX_VALUE / 10^9
        return units * NANOS_PER_SECOND / unitsPerSecond;
    }
}
