package io.rangefetch.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How long a retry may wait: growing with each attempt, except after 503s the bucket's governor takes for noise. */
class RetryingSenderBackoffTest {
    private final RetrySettings retry =
            new RetrySettings(8, Duration.ofMillis(50), Duration.ofSeconds(2), Duration.ofSeconds(30));

    @Test
    void theWaitDoublesWithEachAttemptUpToTheMaximum() {
        assertThat(RetryingSender.waitBound(retry, 1, false)).isEqualTo(Duration.ofMillis(50));
        assertThat(RetryingSender.waitBound(retry, 4, false)).isEqualTo(Duration.ofMillis(400));
        assertThat(RetryingSender.waitBound(retry, 12, false)).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aRetryAfterA503TakenForNoiseWaitsNoLongerThanTheFirst() {
        // sending later does not make noise rarer: the tenth 503 in a row waits as the first did
        assertThat(RetryingSender.waitBound(retry, 10, true)).isEqualTo(Duration.ofMillis(50));
    }
}
