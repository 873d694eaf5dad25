package io.rangefetch.timeline;

import static java.util.Objects.requireNonNull;

import io.rangefetch.timeline.Events.ReadWait;
import java.util.Arrays;

/**
 * A wait's nanoseconds by {@link Phase}: of one read, or summed over many. Immutable.
 *
 * <p>Design: one rule splits a read's wait, and the report's totals, the per-thread figures and the chart's
 * segments all take it from here, so they always agree. The rule:
 *
 * <ul>
 *   <li>a read that joined another stream's GET (or a prefetch's) waited on that GET as a whole: all of its wait is
 *       {@link Phase#JOINED}, whatever phases the event splits it into, so the phase totals stay those of the
 *       reader's own GETs and no nanosecond counts twice;
 *   <li>otherwise each phase the event attributes (queue, throttle, first byte, transfer, backoff) is its own, and
 *       what is left of the wait is {@link Phase#OTHER};
 *   <li>the event promises the attributed parts add up to at most the wait; should a recording break that (clocks
 *       read on different threads), they are scaled down to the wait, so that the parts still sum to it.
 * </ul>
 */
final class WaitSplit {
    private static final Phase[] PHASES = Phase.values();

    private final long[] nanos;

    private WaitSplit(long[] nanos) {
        this.nanos = nanos;
    }

    /** The split of one read's wait. */
    static WaitSplit of(ReadWait wait) {
        requireNonNull(wait, "wait is null");
        long duration = Math.max(0, wait.duration());
        long[] nanos = new long[PHASES.length];
        if (wait.joined()) {
            nanos[Phase.JOINED.ordinal()] = duration;
            return new WaitSplit(nanos);
        }
        nanos[Phase.QUEUE.ordinal()] = Math.max(0, wait.queue());
        nanos[Phase.THROTTLE.ordinal()] = Math.max(0, wait.throttle());
        nanos[Phase.FIRST_BYTE.ordinal()] = Math.max(0, wait.firstByte());
        nanos[Phase.TRANSFER.ordinal()] = Math.max(0, wait.transfer());
        nanos[Phase.BACKOFF.ordinal()] = Math.max(0, wait.backoff());
        long attributed = Arrays.stream(nanos).sum();
        if (attributed > duration) {
            double scale = (double) duration / attributed;
            for (int i = 0; i < nanos.length; i++) {
                nanos[i] = (long) Math.floor(nanos[i] * scale);
            }
            attributed = Arrays.stream(nanos).sum();
        }
        nanos[Phase.OTHER.ordinal()] = duration - attributed;
        return new WaitSplit(nanos);
    }

    /** The sum of the splits of {@code waits}. */
    static WaitSplit sum(Iterable<ReadWait> waits) {
        long[] nanos = new long[PHASES.length];
        for (ReadWait wait : waits) {
            long[] one = of(wait).nanos;
            for (int i = 0; i < nanos.length; i++) {
                nanos[i] += one[i];
            }
        }
        return new WaitSplit(nanos);
    }

    long get(Phase phase) {
        return nanos[phase.ordinal()];
    }

    /** The whole wait: the sum of the phases. */
    long total() {
        return Arrays.stream(nanos).sum();
    }

    /** The phase with the most nanoseconds (the first listed on a tie; {@link Phase#OTHER} when all are 0). */
    Phase largest() {
        Phase largest = Phase.OTHER;
        long most = 0;
        for (Phase phase : PHASES) {
            if (nanos[phase.ordinal()] > most) {
                most = nanos[phase.ordinal()];
                largest = phase;
            }
        }
        return largest;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WaitSplit split && Arrays.equals(nanos, split.nanos);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(nanos);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("WaitSplit[");
        for (Phase phase : PHASES) {
            text.append(phase.label()).append('=').append(get(phase)).append(phase == Phase.OTHER ? "]" : ", ");
        }
        return text.toString();
    }
}
