package io.rangefetch.internal.fetch;

/**
 * Thrown by a fetch that {@linkplain FetchAbort#mayRunAgain may run again} to wait out a retry's backoff without
 * its slot: the scheduler gives the slot back at once, and queues the fetch again after {@link #delayNanos()}, at
 * its priority and in its place among equals. Control flow between a fetch and its scheduler, never seen by a caller:
 * it carries no stack trace, and the fetch must keep whatever it needs to go on (its received bytes, its attempts).
 *
 * <p><b>Public because</b> {@code internal.read.RetryingSender} throws it, and the fetches it sends for
 * ({@code internal.read}'s {@code BlockGet} and {@code ObjectVersion}, {@code internal.list.ParallelListing}) let it
 * through to run again.
 */
public final class BackOff extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final long delayNanos;

    public BackOff(long delayNanos) {
        super("backing off for " + delayNanos + " ns", null, false, false);
        if (delayNanos < 0) {
            throw new IllegalArgumentException("Negative backoff " + delayNanos);
        }
        this.delayNanos = delayNanos;
    }

    public long delayNanos() {
        return delayNanos;
    }
}
