package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * When a GET slow to begin is sent again ({@link AttemptSender}): once it has waited past {@code percentile} of
 * the recent first-byte latencies of GETs of its size, and at least {@code minDelay}; never more often than
 * {@code maxFraction} of the GETs sent.
 *
 * <p><b>Public because</b> {@code io.rangefetch.EngineSettings} makes it from the configuration.
 */
public record HedgeSettings(boolean enabled, double percentile, Duration minDelay, double maxFraction) {

    public HedgeSettings {
        requireNonNull(minDelay, "minDelay is null");
        if (!(percentile > 0 && percentile < 1) || minDelay.isNegative() || !(maxFraction >= 0 && maxFraction <= 1)) {
            throw new IllegalArgumentException("Invalid hedge settings " + this);
        }
    }

    public static HedgeSettings off() {
        return new HedgeSettings(false, 0.95, Duration.ZERO, 0);
    }

    boolean active() {
        return enabled && maxFraction > 0;
    }
}
