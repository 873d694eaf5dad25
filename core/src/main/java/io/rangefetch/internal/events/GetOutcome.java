package io.rangefetch.internal.events;

/**
 * How one GET attempt ended, as events and metrics name it.
 *
 * <p><b>Public because</b> {@code io.rangefetch.RangefetchMetrics} and {@code io.rangefetch.RangefetchOpenTelemetry}
 * report GETs by outcome.
 */
public enum GetOutcome {
    /** Its body was read to the end. */
    COMPLETE("complete"),
    /** Its answer was cut: its hedge (or the send it hedged) answered first. */
    HEDGE_LOST("hedge lost"),
    /** Its answer was cut: nobody wanted its bytes any more (the read failed, timed out or left). */
    ABANDONED("abandoned"),
    /** It was stopped before its answer came: its fetch was cancelled. */
    CANCELLED("cancelled"),
    /** S3 answered 503 SlowDown. */
    THROTTLED("throttled"),
    /** The object changed: 412, or another ETag than the one asked for. */
    CHANGED("changed"),
    /** No answer began within the first-byte timeout. */
    TIMED_OUT("timed out"),
    /** Its body stopped for longer than the between-bytes timeout. */
    STALLED("stalled"),
    /** Any other failure: another status, a connection that failed, a body cut short. */
    FAILED("failed");

    private final String label;

    GetOutcome(String label) {
        this.label = label;
    }

    /** The name events and metrics use. */
    public String label() {
        return label;
    }
}
