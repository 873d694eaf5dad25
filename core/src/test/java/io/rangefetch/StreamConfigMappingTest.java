package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.internal.plan.CoalescerSettings;
import io.rangefetch.internal.plan.PlannerSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the factory's planner and coalescer are given for a configuration. */
class StreamConfigMappingTest {

    @Test
    void theDefaultsGivePartsOfOneLatencysWorthAsManyAsTheFetchConcurrency() {
        StreamConfig config = StreamConfig.defaults();
        // 30 ms × 85 MiB/s, between the 64 KiB and 8 MiB request sizes
        long oneLatency = 2_673_868;
        assertThat(config.plannerSettings()).isEqualTo(new PlannerSettings(64L << 10, 8L << 20, 8L << 20, 2,
                4L << 20, 64L << 20, 16, oneLatency, 512L << 10));
        assertThat(config.coalescerSettings()).isEqualTo(new CoalescerSettings(oneLatency, 10_695_475, 8L << 20,
                0.25, oneLatency, 16, 64 * 1024));
    }

    @Test
    void partsStayWithinTheRequestSizes() {
        StreamConfig fastNetwork = StreamConfig.builder().firstByteLatency(Duration.ofNanos(1)).build();
        assertThat(fastNetwork.plannerSettings().prefetchMinPartSize()).isEqualTo(fastNetwork.minRequestSize());
        assertThat(fastNetwork.coalescerSettings().minPartSize()).isEqualTo(fastNetwork.minRequestSize());

        StreamConfig slowStart = StreamConfig.builder().firstByteLatency(Duration.ofSeconds(1)).build();
        assertThat(slowStart.plannerSettings().prefetchMinPartSize()).isEqualTo(slowStart.maxRequestSize());
        assertThat(slowStart.coalescerSettings().minPartSize()).isEqualTo(slowStart.maxRequestSize());
    }

    @Test
    void givenVectoredSizesReachTheCoalescer() {
        StreamConfig config = StreamConfig.builder().vectoredMinSeek(1L << 20).vectoredMaxMergedSize(4L << 20)
                .vectoredDiscardTolerance(0).fetchMaxConcurrency(4).build();
        CoalescerSettings settings = config.coalescerSettings();
        assertThat(settings.minSeek()).isEqualTo(1L << 20);
        assertThat(settings.maxMergedSize()).isEqualTo(4L << 20);
        assertThat(settings.discardTolerance()).isZero();
        assertThat(settings.maxParallelParts()).isEqualTo(4);
        assertThat(config.plannerSettings().prefetchParallelism()).isEqualTo(4);
    }
}
