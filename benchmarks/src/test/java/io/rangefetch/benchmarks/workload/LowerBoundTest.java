package io.rangefetch.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.testing.proxy.NetworkModel;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LowerBoundTest {

    private static final NetworkModel MODEL = new NetworkModel(Duration.ofMillis(20), 80_000_000, 0);

    @Test
    void dependentRoundTripsPlusBytesAtTheParallelRate() {
        // 2 × 20 ms + 128 MB / (16 × 80 MB/s)
        assertThat(LowerBound.parallel(2).time(MODEL, 128_000_000))
                .contains(Duration.ofMillis(40).plus(Duration.ofMillis(100)));
    }

    @Test
    void aTotalCapBelowTheConnectionsLimitsTheRate() {
        NetworkModel capped = new NetworkModel(Duration.ofMillis(20), 80_000_000, 100_000_000);

        assertThat(LowerBound.parallel(1).time(capped, 100_000_000)).contains(Duration.ofMillis(1020));
    }

    @Test
    void dependentReadsOnOneConnectionPayItsRate() {
        // 64 × 20 ms + 3.2 MB / 80 MB/s
        assertThat(new LowerBound(64, 1).time(MODEL, 3_200_000)).contains(Duration.ofMillis(1280 + 40));
    }

    @Test
    void anUnshapedNetworkHasNoMeaningfulBound() {
        assertThat(LowerBound.parallel(1).time(new NetworkModel(Duration.ZERO, 0, 0), 1_000_000))
                .isEmpty();
    }
}
