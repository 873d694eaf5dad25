package io.rangefetch.benchmarks.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.benchmarks.run.FaultPlan.RateLimit;
import io.rangefetch.testing.proxy.Fault;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FaultPlanTest {

    @Test
    void plansSayWhatTheyInject() {
        assertThat(FaultPlan.NONE.isNone()).isTrue();
        assertThat(FaultPlan.NONE.describe()).isEqualTo("no faults");
        assertThat(FaultPlan.random(Fault.SLOW_DOWN_503, 0.1).describe())
                .isEqualTo("10% of GETs answered 503 SlowDown by the proxy");
        assertThat(FaultPlan.random(Fault.FIRST_BYTE_DELAY, 0.02).describe())
                .isEqualTo("2% of GETs held back 2 s before their first byte");
        assertThat(FaultPlan.rateLimited(new RateLimit(160, 8)).describe())
                .isEqualTo("GETs and HEADs above 160 requests/s (burst 8) answered 503 SlowDown by the proxy");
    }

    @Test
    void eachRunOfARowDrawsFromItsOwnSeed() {
        FaultPlan plan = FaultPlan.random(Fault.SLOW_DOWN_503, 0.5);

        assertThat(plan.forRun(0).seed()).isEqualTo(FaultPlan.SEED);
        assertThat(plan.forRun(3).seed()).isEqualTo(FaultPlan.SEED + 3);
        assertThat(plan.forRun(3).probabilities()).isEqualTo(plan.probabilities());
    }

    @Test
    void badPlansFailAtConstruction() {
        assertThatThrownBy(() -> FaultPlan.random(Fault.SLOW_DOWN_503, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SLOW_DOWN_503");
        assertThatThrownBy(() -> new FaultPlan(
                        Map.of(Fault.SLOW_DOWN_503, 0.6, Fault.RESET_MID_BODY, 0.6),
                        FaultPlan.SEED,
                        FaultPlan.DEFAULT_FIRST_BYTE_DELAY,
                        Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than 1");
        assertThatThrownBy(() -> new RateLimit(0, 8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RateLimit(160, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withoutAProxyOnlyTheCleanPlanIsAccepted() {
        FaultInjector none = FaultInjector.none();

        none.apply(FaultPlan.NONE);
        assertThatThrownBy(() -> none.apply(FaultPlan.random(Fault.SLOW_DOWN_503, 0.5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--endpoint");
    }
}
