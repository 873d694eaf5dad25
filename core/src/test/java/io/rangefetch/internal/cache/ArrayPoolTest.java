package io.rangefetch.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ArrayPoolTest {
    // Small sizes keep the arrays cheap: recyclable from 16 bytes, in steps of 4.
    private final MemoryBudget budget = new MemoryBudget(100);
    private final ArrayPool pool = new ArrayPool(budget, 16, 4);

    @Test
    void theDefaultsRecycleArraysOfAMebibyteAndMoreInStepsOf64Kibibytes() {
        ArrayPool defaults = new ArrayPool(new MemoryBudget(1));
        assertThat(defaults.capacityFor((1 << 20) - 1)).isEqualTo((1 << 20) - 1);
        assertThat(defaults.capacityFor(1 << 20)).isEqualTo(1 << 20);
        assertThat(defaults.capacityFor((1 << 20) + 1)).isEqualTo((1 << 20) + (64 << 10));
        assertThat(defaults.recyclable((1 << 20) - 1)).isFalse();
        assertThat(defaults.recyclable(1 << 20)).isTrue();
        assertThat(defaults.recyclable((1 << 20) + 1)).isFalse();
    }

    @Test
    void thePoolNeedsAPositiveMinimumAndGranule() {
        assertThatThrownBy(() -> new ArrayPool(budget, 0, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ArrayPool(budget, 16, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void smallLengthsAreKeptAndLargeOnesRoundedUpToTheGranule() {
        assertThat(pool.capacityFor(1)).isEqualTo(1);
        assertThat(pool.capacityFor(15)).isEqualTo(15);
        assertThat(pool.capacityFor(16)).isEqualTo(16);
        assertThat(pool.capacityFor(17)).isEqualTo(20);
        assertThat(pool.capacityFor(20)).isEqualTo(20);
        assertThatThrownBy(() -> pool.capacityFor(Integer.MAX_VALUE + 1L)).isInstanceOf(ArithmeticException.class);
    }

    @Test
    void onlyLengthsTheRoundingProducesAreRecyclable() {
        assertThat(pool.recyclable(0)).isFalse();
        assertThat(pool.recyclable(12)).isFalse(); // a multiple of the granule, but too small to bother
        assertThat(pool.recyclable(16)).isTrue();
        assertThat(pool.recyclable(18)).isFalse();
        assertThat(pool.recyclable(20)).isTrue();
    }

    @Test
    void anArrayFitsABlockUpToAnEighthLarger() {
        assertThat(ArrayPool.largestFitting(0)).isZero();
        assertThat(ArrayPool.largestFitting(7)).isEqualTo(7);
        assertThat(ArrayPool.largestFitting(16)).isEqualTo(18);
        assertThat(ArrayPool.largestFitting(1 << 20)).isEqualTo((1 << 20) + (1 << 17));
        assertThat(ArrayPool.largestFitting(Integer.MAX_VALUE - 1))
                .as("no overflow")
                .isEqualTo(Integer.MAX_VALUE);
        assertThat(ArrayPool.largestFitting(Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void anOfferedArrayIsCountedInTheBudgetUntilItIsTaken() {
        byte[] array = new byte[20];
        assertThat(pool.offer(array)).isTrue();
        assertThat(pool.freeBytes()).isEqualTo(20);
        assertThat(budget.held()).isEqualTo(20);

        assertThat(pool.take(20)).isSameAs(array);
        assertThat(pool.freeBytes()).isZero();
        assertThat(budget.held()).as("the reservation leaves with the array").isEqualTo(20);
        assertThat(pool.take(20)).isNull();
    }

    @Test
    void anArrayThePoolWouldNotHaveMadeIsNotKept() {
        assertThat(pool.offer(new byte[12])).isFalse(); // below the minimum
        assertThat(pool.offer(new byte[18])).isFalse(); // not a multiple of the granule
        assertThat(pool.offer(new byte[0])).isFalse();
        assertThat(pool.freeBytes()).isZero();
        assertThat(budget.held()).isZero();
    }

    @Test
    void anArrayThatWouldOverfillTheBudgetIsLetGo() {
        budget.tryReserve(80);
        assertThat(pool.offer(new byte[20])).isTrue(); // exactly at capacity
        assertThat(budget.held()).isEqualTo(100);
        assertThat(pool.offer(new byte[16])).isFalse();
        assertThat(pool.freeBytes()).isEqualTo(20);
        assertThat(budget.held()).isEqualTo(100);
    }

    @Test
    void aTakeFindsTheSmallestArrayWithinAnEighthAndTheNewestOfThatLength() {
        byte[] older = new byte[20];
        byte[] newer = new byte[20];
        byte[] larger = new byte[24];
        offer(older, larger, newer);
        assertThat(pool.take(16)).as("16 + 16/8 = 18 < 20: none fits").isNull();
        assertThat(pool.take(25)).as("all are too short").isNull();
        assertThat(pool.take(18)).isSameAs(newer);
        assertThat(pool.take(18)).isSameAs(older);
        assertThat(pool.take(18)).as("24 > 18 + 18/8").isNull();
        assertThat(pool.take(22)).isSameAs(larger);
        assertThat(pool.freeBytes()).isZero();
        assertThat(pool.take(16)).isNull();
    }

    @Test
    void makingRoomDropsTheSmallestAndOldestArraysFirstAndOnlyAsManyAsNeeded() {
        byte[] newer = new byte[20];
        offer(new byte[20], new byte[16], newer);
        budget.tryReserve(40);
        assertThat(budget.held()).isEqualTo(96);

        pool.dropUntilFits(4);
        assertThat(budget.held()).as("4 bytes fit already: nothing dropped").isEqualTo(96);
        pool.dropUntilFits(20);
        assertThat(budget.held()).as("the 16-byte array goes").isEqualTo(80);
        pool.dropUntilFits(21);
        assertThat(budget.held()).as("then the older 20-byte one").isEqualTo(60);
        assertThat(pool.freeBytes()).isEqualTo(20);
        assertThat(pool.take(20)).isSameAs(newer);
    }

    @Test
    void makingRoomForMoreThanTheCapacityDropsEveryArrayAndStopsThere() {
        offer(new byte[16], new byte[20]);
        budget.tryReserve(10);
        pool.dropUntilFits(101);
        assertThat(pool.freeBytes()).isZero();
        assertThat(budget.held())
                .as("bytes the pool does not own are left alone")
                .isEqualTo(10);
        pool.dropUntilFits(0);
        assertThat(budget.held()).isEqualTo(10);
    }

    @Test
    void droppingEverythingReleasesExactlyTheFreeArrays() {
        offer(new byte[16], new byte[20]);
        budget.tryReserve(30);
        pool.dropAll();
        assertThat(pool.freeBytes()).isZero();
        assertThat(budget.held()).isEqualTo(30);
        assertThat(pool.take(16)).isNull();
        pool.dropAll();
        assertThat(budget.held()).isEqualTo(30);
    }

    private void offer(byte[]... arrays) {
        for (byte[] array : arrays) {
            assertThat(pool.offer(array)).isTrue();
        }
    }
}
