package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class WasteBudgetTest {
    private static final long MIB = 1024 * 1024;

    @Test
    void predictionsBackOffOnceWastePassesHalfWhatWasReadPlusTheAllowanceAndComeBackWhenReadsCatchUp() {
        WasteBudget budget = new WasteBudget(4 * MIB, 0);
        assertThat(budget.allowsPrediction(0)).isTrue();
        budget.wasted(4 * MIB);
        assertThat(budget.allowsPrediction(0)).as("within the allowance").isTrue();
        budget.wasted(4 * MIB);
        assertThat(budget.allowsPrediction(1 * MIB))
                .as("8 MiB wasted for 1 MiB read")
                .isFalse();
        assertThat(budget.excess(1 * MIB))
                .as("the next stream starts backed off")
                .isEqualTo(8 * MIB - MIB / 2);
        assertThat(budget.allowsPrediction(8 * MIB))
                .as("the reader has read enough to pay for it")
                .isTrue();
        assertThat(budget.excess(8 * MIB)).isZero();
    }

    @Test
    void carriedWasteStartsAStreamBackedOff() {
        WasteBudget budget = new WasteBudget(MIB, 3 * MIB);
        assertThat(budget.allowsPrediction(0)).isFalse();
        assertThat(budget.allowsPrediction(4 * MIB)).isTrue();
        assertThatThrownBy(() -> new WasteBudget(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A stream whose predictions fetch windows that are left whole behind, and which predicts only when its budget
     * allows, ends within 1.5× what it read plus the allowance and one window.
     */
    @Property
    void wasteStaysWithinTheBoundPlusOneWindow(
            @ForAll @IntRange(min = 1, max = 400) int steps,
            @ForAll @LongRange(min = 1, max = 1_000_000) long readPerStep,
            @ForAll @LongRange(min = 1, max = 8_000_000) long window,
            @ForAll @LongRange(min = 0, max = 4_000_000) long allowance) {
        WasteBudget budget = new WasteBudget(allowance, 0);
        long read = 0;
        for (int i = 0; i < steps; i++) {
            read += readPerStep;
            if (budget.allowsPrediction(read)) {
                budget.wasted(window);
            }
        }
        assertThat(budget.wasted()).isLessThanOrEqualTo((long) (WasteBudget.RATIO * read) + allowance + window);
    }
}
