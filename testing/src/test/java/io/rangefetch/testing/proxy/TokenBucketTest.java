package io.rangefetch.testing.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The bucket's schedule on a clock the test moves by hand: no sleeping, exact nanoseconds. */
class TokenBucketTest {

    private long now = 1_000_000_000L;
    // 1 MB/s: a byte costs a microsecond; 64 KiB of burst
    private final TokenBucket bucket = new TokenBucket(1_000_000, 65_536, () -> now);

    @Test
    void aFullBurstLeavesAtOnceAndTheNextBytesWaitForTheRate() {
        assertThat(bucket.reserve(32_768)).isZero();
        assertThat(bucket.reserve(32_768)).isZero();

        assertThat(bucket.reserve(1_000)).isEqualTo(1_000_000L);
        assertThat(bucket.reserve(1_000)).isEqualTo(2_000_000L);
    }

    @Test
    void waitingTheAnswerBringsTheNextReservationBackOnSchedule() {
        bucket.reserve(65_536);
        long wait = bucket.reserve(10_000);
        now += wait;

        assertThat(bucket.reserve(10_000)).isEqualTo(10_000_000L);
    }

    @Test
    void idleTimeEarnsCreditButNoMoreThanTheBurst() {
        bucket.reserve(65_536);
        now += 10_000_000_000L; // ten idle seconds would be 10 MB of credit without the cap

        assertThat(bucket.reserve(65_536)).isZero();
        assertThat(bucket.reserve(1)).isEqualTo(1_000L);
    }

    @Test
    void theRateHoldsOverALongTransfer() {
        long waited = 0;
        for (int i = 0; i < 1_000; i++) {
            long wait = bucket.reserve(16_384);
            now += wait; // a caller that sleeps exactly as told
            waited += wait;
        }
        // 16,384,000 bytes at 1 MB/s, less the 64 KiB burst that left at once
        assertThat(waited).isEqualTo((16_384_000L - 65_536) * 1_000);
    }

    @Test
    void tryTakeTakesTheBurstThenNothingUntilTheRateEarnsIt() {
        assertThat(bucket.tryTake(65_536)).isTrue();
        assertThat(bucket.tryTake(1)).isFalse();
        assertThat(bucket.tryTake(1))
                .as("a refusal took nothing, so nothing is owed")
                .isFalse();

        now += 999; // a byte costs 1,000 ns
        assertThat(bucket.tryTake(1)).isFalse();
        now += 1;
        assertThat(bucket.tryTake(1)).isTrue();
        assertThat(bucket.tryTake(1)).isFalse();
    }

    @Test
    void refusedTakesLeaveTheScheduleForReservations() {
        bucket.reserve(65_536);
        for (int i = 0; i < 100; i++) {
            assertThat(bucket.tryTake(1_000)).isFalse();
        }

        assertThat(bucket.reserve(1_000)).isEqualTo(1_000_000L);
    }

    @Test
    void reservationsBeyondTheBurstAreRefused() {
        assertThatThrownBy(() -> bucket.reserve(65_537)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> bucket.reserve(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> bucket.tryTake(65_537)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TokenBucket(0, 1, () -> 0)).isInstanceOf(IllegalArgumentException.class);
        // a burst whose cost in nanoseconds would overflow a long
        assertThatThrownBy(() -> new TokenBucket(1, 10_000_000_000L, () -> 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
