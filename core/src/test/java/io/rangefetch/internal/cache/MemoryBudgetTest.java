package io.rangefetch.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemoryBudgetTest {

    @Test
    void aBudgetNeedsAPositiveCapacity() {
        assertThatThrownBy(() -> new MemoryBudget(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
        assertThatThrownBy(() -> new MemoryBudget(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new MemoryBudget(1).capacity()).isEqualTo(1);
    }

    @Test
    void aNewBudgetHoldsNothing() {
        MemoryBudget budget = new MemoryBudget(100);
        assertThat(budget.capacity()).isEqualTo(100);
        assertThat(budget.held()).isZero();
        assertThat(budget.peak()).isZero();
    }

    @Test
    void reservationsAddUpToExactlyTheCapacityAndNoFurther() {
        MemoryBudget budget = new MemoryBudget(100);
        assertThat(budget.tryReserve(60)).isTrue();
        assertThat(budget.fits(40)).isTrue();
        assertThat(budget.fits(41)).isFalse();
        assertThat(budget.tryReserve(41)).isFalse();
        assertThat(budget.held()).as("a refused reservation takes nothing").isEqualTo(60);
        assertThat(budget.tryReserve(40)).isTrue();
        assertThat(budget.held()).isEqualTo(100);
        assertThat(budget.fits(1)).isFalse();
        assertThat(budget.tryReserve(1)).isFalse();
        assertThat(budget.held()).isEqualTo(100);
    }

    @Test
    void zeroBytesAlwaysFitAndChangeNothing() {
        MemoryBudget budget = new MemoryBudget(10);
        assertThat(budget.tryReserve(10)).isTrue();
        assertThat(budget.fits(0)).isTrue();
        assertThat(budget.tryReserve(0)).isTrue();
        budget.release(0);
        assertThat(budget.held()).isEqualTo(10);
    }

    @Test
    void aReservationLargerThanTheCapacityIsRefusedEvenWhenNothingIsHeld() {
        MemoryBudget budget = new MemoryBudget(100);
        assertThat(budget.fits(101)).isFalse();
        assertThat(budget.tryReserve(101)).isFalse();
        assertThat(budget.tryReserve(Long.MAX_VALUE)).isFalse();
        assertThat(budget.held()).isZero();
        assertThat(budget.peak()).isZero();
    }

    @Test
    void aHugeReservationCannotOverflowTheCount() {
        MemoryBudget budget = new MemoryBudget(Long.MAX_VALUE);
        assertThat(budget.tryReserve(Long.MAX_VALUE - 1)).isTrue();
        assertThat(budget.tryReserve(2)).isFalse();
        assertThat(budget.tryReserve(1)).isTrue();
        assertThat(budget.held()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void releasingGivesBytesBackAndThePeakRemainsTheHighestCount() {
        MemoryBudget budget = new MemoryBudget(100);
        budget.tryReserve(70);
        budget.release(50);
        assertThat(budget.held()).isEqualTo(20);
        assertThat(budget.peak()).isEqualTo(70);
        budget.tryReserve(30);
        assertThat(budget.peak()).isEqualTo(70);
        budget.tryReserve(50);
        assertThat(budget.peak()).isEqualTo(100);
        budget.release(100);
        assertThat(budget.held()).isZero();
        assertThat(budget.peak()).isEqualTo(100);
    }

    @Test
    void releasingMoreThanIsHeldIsABugAndChangesNothing() {
        MemoryBudget budget = new MemoryBudget(100);
        budget.tryReserve(30);
        assertThatThrownBy(() -> budget.release(31))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("31")
                .hasMessageContaining("30");
        assertThat(budget.held()).isEqualTo(30);
        budget.release(30);
        assertThatThrownBy(() -> budget.release(1)).isInstanceOf(IllegalStateException.class);
        assertThat(budget.held()).isZero();
    }

    @Test
    void negativeCountsAreRefusedRatherThanMovingTheCountTheWrongWay() {
        MemoryBudget budget = new MemoryBudget(100);
        budget.tryReserve(50);
        assertThatThrownBy(() -> budget.tryReserve(-10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> budget.fits(-10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> budget.release(-10)).isInstanceOf(IllegalArgumentException.class);
        assertThat(budget.held()).isEqualTo(50);
    }
}
