package io.rangefetch.testing.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RandomFaultsTest {

    @Test
    void aSeededPlanStartsEmptyAndEachWithAddsToANewPlan() {
        RandomFaults empty = RandomFaults.seeded(42);
        RandomFaults one = empty.with(Fault.SLOW_DOWN_503, 0.1);
        RandomFaults two = one.with(Fault.RESET_MID_BODY, 0.2);

        assertThat(empty.seed()).isEqualTo(42);
        assertThat(empty.probabilities()).isEmpty();
        assertThat(one.probabilities()).containsExactly(Map.entry(Fault.SLOW_DOWN_503, 0.1));
        assertThat(two.seed()).isEqualTo(42);
        assertThat(two.probabilities())
                .containsExactly(Map.entry(Fault.SLOW_DOWN_503, 0.1), Map.entry(Fault.RESET_MID_BODY, 0.2));
        assertThatThrownBy(() -> two.probabilities().put(Fault.TRUNCATED_BODY, 0.1))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void probabilitiesMustBeInZeroToOneAndAddUpToAtMostOne() {
        RandomFaults plan = RandomFaults.seeded(1);

        assertThatThrownBy(() -> plan.with(Fault.SLOW_DOWN_503, -0.1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SLOW_DOWN_503")
                .hasMessageContaining("-0.1");
        assertThatThrownBy(() -> plan.with(Fault.SLOW_DOWN_503, 1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan.with(Fault.SLOW_DOWN_503, Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan.with(Fault.SLOW_DOWN_503, 0.6).with(Fault.SERVER_ERROR_500, 0.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 1");
        assertThatThrownBy(() -> plan.with(null, 0.1)).isInstanceOf(NullPointerException.class);
        // decimal fractions that add up to 1 on paper are one plan
        assertThat(plan.with(Fault.SLOW_DOWN_503, 0.1)
                        .with(Fault.SERVER_ERROR_500, 0.2)
                        .with(Fault.TRUNCATED_BODY, 0.7)
                        .probabilities())
                .hasSize(3);
        assertThat(plan.with(Fault.SLOW_DOWN_503, 0)
                        .with(Fault.SERVER_ERROR_500, 1)
                        .probabilities())
                .hasSize(2);
    }

    @Test
    void aFaultGivenTwiceIsRefused() {
        RandomFaults plan = RandomFaults.seeded(1).with(Fault.TRUNCATED_BODY, 0.1);

        assertThatThrownBy(() -> plan.with(Fault.TRUNCATED_BODY, 0.2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TRUNCATED_BODY is already in the plan");
    }

    @Test
    void toStringShowsTheSeedAndEveryProbability() {
        RandomFaults plan =
                RandomFaults.seeded(99).with(Fault.RESET_MID_BODY, 0.05).with(Fault.SLOW_DOWN_503, 0.1);

        assertThat(plan).hasToString("RandomFaults{seed 99, {SLOW_DOWN_503=0.1, RESET_MID_BODY=0.05}}");
    }

    @Test
    void aDrawMapsOneDoubleOntoTheFaultsInDeclarationOrder() {
        // added out of order on purpose: the draw follows Fault's order, not the calls'
        RandomFaults plan =
                RandomFaults.seeded(0).with(Fault.SERVER_ERROR_500, 0.25).with(Fault.SLOW_DOWN_503, 0.25);
        Random scripted = scripted(0.0, 0.2499, 0.25, 0.4999, 0.5, 0.99);

        assertThat(List.of(
                        draw(plan, scripted),
                        draw(plan, scripted),
                        draw(plan, scripted),
                        draw(plan, scripted),
                        draw(plan, scripted),
                        draw(plan, scripted)))
                .containsExactly(
                        "SLOW_DOWN_503", "SLOW_DOWN_503", "SERVER_ERROR_500", "SERVER_ERROR_500", "none", "none");
    }

    @Test
    void oneSeedDrawsOneSequence() {
        RandomFaults plan =
                RandomFaults.seeded(5).with(Fault.RESET_MID_BODY, 0.3).with(Fault.FIRST_BYTE_DELAY, 0.3);
        Random first = new Random(plan.seed());
        Random second = new Random(plan.seed());

        for (int i = 0; i < 1_000; i++) {
            assertThat(plan.draw(first)).isEqualTo(plan.draw(second));
        }
    }

    private static String draw(RandomFaults plan, Random random) {
        Fault fault = plan.draw(random);
        return fault == null ? "none" : fault.name();
    }

    /** A {@link Random} whose doubles are {@code values}, in order. */
    private static Random scripted(double... values) {
        Deque<Double> left = new ArrayDeque<>();
        for (double value : values) {
            left.add(value);
        }
        return new Random() {
            @Override
            public double nextDouble() {
                return left.remove();
            }
        };
    }
}
