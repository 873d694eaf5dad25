package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.fetch.ThrottleSettings;
import java.time.Duration;

/**
 * How the engine copes with a slow or failing S3: retries ({@code retry.*}), the per-attempt timeouts, the
 * deadline of one read call, the throttle governors ({@code throttle.*}) and hedging ({@code hedge.*}). A zero
 * duration is no limit.
 *
 * <p><b>Public because</b> {@code io.rangefetch.EngineSettings} makes it from the configuration, and
 * {@code io.rangefetch.StreamFactory} hands it to the engine.
 */
public record Resilience(
        RetrySettings retry,
        Duration firstByteTimeout,
        Duration betweenBytesTimeout,
        Duration readDeadline,
        ThrottleSettings throttle,
        HedgeSettings hedge) {

    public Resilience {
        requireNonNull(retry, "retry is null");
        requireNonNull(firstByteTimeout, "firstByteTimeout is null");
        requireNonNull(betweenBytesTimeout, "betweenBytesTimeout is null");
        requireNonNull(readDeadline, "readDeadline is null");
        requireNonNull(throttle, "throttle is null");
        requireNonNull(hedge, "hedge is null");
        if (firstByteTimeout.isNegative() || betweenBytesTimeout.isNegative() || readDeadline.isNegative()) {
            throw new IllegalArgumentException("Negative timeout in " + this);
        }
    }

    /** One attempt, no timeout, no governor, no hedge: each request as the client sends it. */
    public static Resilience none() {
        return new Resilience(
                RetrySettings.none(),
                Duration.ZERO,
                Duration.ZERO,
                Duration.ZERO,
                ThrottleSettings.off(),
                HedgeSettings.off());
    }

    /** Whether requests are sent from exchange threads: needed to give up waiting for an answer's head. */
    public boolean watchesFirstBytes() {
        return !firstByteTimeout.isZero() || hedge.active();
    }
}
