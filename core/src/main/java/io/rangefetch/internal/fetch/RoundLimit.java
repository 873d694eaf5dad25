package io.rangefetch.internal.fetch;

import com.netflix.concurrency.limits.limit.AbstractLimit;

/**
 * Additive increase, multiplicative decrease, counted in rounds as TCP counts its window: the limit grows by
 * the step once as many answers as the limit came back without a 503 (not on every answer, which would
 * double it each round), and only while the requests use at least half of it; a 503 multiplies it by the
 * factor, once per round: a 503 to a request sent before the last decrease belongs to the burst that caused
 * that decrease, and is not counted again (otherwise the 503s of one burst, one per request in flight, would
 * drive the limit straight to the floor).
 *
 * <p>The library's {@code AIMDLimit} grows by one on every answer and decreases on every 503; the increase
 * step and the once-a-round decrease that issue 12 asks for need this {@link AbstractLimit} of our own. Its
 * {@code onSample} is synchronized, so the fields here are touched under that lock only.
 */
final class RoundLimit extends AbstractLimit {
    private final int min;
    private final int max;
    private final int step;
    private final double factor;
    // Guarded by AbstractLimit.onSample's lock.
    private int answersThisRound;
    private boolean decreased;
    private long lastDecrease;

    RoundLimit(ThrottleSettings settings) {
        super(settings.initialConcurrency());
        this.min = settings.minConcurrency();
        this.max = settings.maxConcurrency();
        this.step = settings.increaseStep();
        this.factor = settings.decreaseFactor();
    }

    @Override
    protected int _update(long startTime, long rtt, int inflight, boolean didDrop) {
        int limit = getLimit();
        if (didDrop) {
            if (decreased && startTime - lastDecrease < 0) {
                return limit; // sent before the last decrease: part of the burst already answered for
            }
            decreased = true;
            lastDecrease = startTime + rtt;
            answersThisRound = 0;
            return Math.max(min, (int) (limit * factor));
        }
        if (inflight * 2 < limit) {
            return limit; // the limit is not what holds requests back: growing it would prove nothing
        }
        if (++answersThisRound < limit) {
            return limit;
        }
        answersThisRound = 0;
        return (int) Math.min(max, (long) limit + step);
    }

    @Override
    public String toString() {
        return "RoundLimit[" + getLimit() + "]";
    }
}
