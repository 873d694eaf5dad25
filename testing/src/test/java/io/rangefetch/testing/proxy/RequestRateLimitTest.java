package io.rangefetch.testing.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The request bucket on a clock the test moves by hand. */
class RequestRateLimitTest {

    private long now = 7_000_000_000L;

    @Test
    void aBurstGoesAtOnceThenOneRequestPerRefill() {
        RequestRateLimit limit = new RequestRateLimit(4, 2, () -> now); // a token every 250 ms

        assertThat(limit.tryAcquire()).isTrue();
        assertThat(limit.tryAcquire()).isTrue();
        assertThat(limit.tryAcquire()).isFalse();
        now += 249_999_999L;
        assertThat(limit.tryAcquire()).isFalse();
        now += 1;
        assertThat(limit.tryAcquire()).isTrue();
        assertThat(limit.tryAcquire()).isFalse();
    }

    @Test
    void idleTimeRefillsNoMoreThanTheBurst() {
        RequestRateLimit limit = new RequestRateLimit(1_000, 3, () -> now);
        for (int i = 0; i < 3; i++) {
            limit.tryAcquire();
        }
        now += 60_000_000_000L;

        int admitted = 0;
        while (limit.tryAcquire()) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(3);
    }

    @Test
    void aFractionalRateIsKept() {
        RequestRateLimit limit = new RequestRateLimit(0.5, 1, () -> now); // one request every 2 s

        assertThat(limit.tryAcquire()).isTrue();
        now += 1_999_999_999L;
        assertThat(limit.tryAcquire()).isFalse();
        now += 1;
        assertThat(limit.tryAcquire()).isTrue();
    }

    @Test
    void ratesAndBurstsOutOfRangeAreRefusedWithTheValue() {
        assertThatThrownBy(() -> new RequestRateLimit(0, 1, () -> now)).hasMessageContaining(": 0.0");
        assertThatThrownBy(() -> new RequestRateLimit(Double.POSITIVE_INFINITY, 1, () -> now))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RequestRateLimit(1, 1_000_001, () -> now))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1000001");
        // the largest of both still fits the bucket's arithmetic
        RequestRateLimit largest =
                new RequestRateLimit(RequestRateLimit.MAX_REQUESTS_PER_SECOND, RequestRateLimit.MAX_BURST, () -> now);
        assertThat(largest.tryAcquire()).isTrue();
        assertThat(new RequestRateLimit(0.0001, RequestRateLimit.MAX_BURST, () -> now).tryAcquire())
                .isTrue();
    }
}
