package io.rangefetch;

import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.FIRST_BYTE_LATENCY;
import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.VECTORED_DISCARD_TOLERANCE;
import static io.rangefetch.StreamConfig.VECTORED_MAX_MERGED_SIZE;
import static io.rangefetch.StreamConfig.VECTORED_MIN_SEEK;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.internal.plan.CoalescerSettings;
import io.rangefetch.internal.plan.PlannerSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the factory's planner and coalescer are given for a configuration ({@link EngineSettings}). */
class EngineSettingsTest {

    @Test
    void theDefaultsGivePartsOfOneLatencysWorthAsManyAsTheFetchConcurrency() {
        StreamConfig config = StreamConfig.defaults();
        // 30 ms × 85 MiB/s, between the 64 KiB and 8 MiB request sizes
        long oneLatency = 2_673_868;
        assertThat(EngineSettings.planner(config))
                .isEqualTo(new PlannerSettings(
                        64L << 10, 8L << 20, 8L << 20, 2, 4L << 20, 64L << 20, 16, oneLatency, 512L << 10));
        assertThat(EngineSettings.coalescer(config))
                .isEqualTo(new CoalescerSettings(oneLatency, 10_695_475, 8L << 20, 0.25, oneLatency, 16, 64 * 1024));
    }

    @Test
    void partsStayWithinTheRequestSizes() {
        StreamConfig fastNetwork = StreamConfig.builder()
                .set(FIRST_BYTE_LATENCY, Duration.ofNanos(1))
                .build();
        assertThat(EngineSettings.planner(fastNetwork).prefetchMinPartSize())
                .isEqualTo(fastNetwork.get(MIN_REQUEST_SIZE));
        assertThat(EngineSettings.coalescer(fastNetwork).minPartSize()).isEqualTo(fastNetwork.get(MIN_REQUEST_SIZE));

        StreamConfig slowStart = StreamConfig.builder()
                .set(FIRST_BYTE_LATENCY, Duration.ofSeconds(1))
                .build();
        assertThat(EngineSettings.planner(slowStart).prefetchMinPartSize()).isEqualTo(slowStart.get(MAX_REQUEST_SIZE));
        assertThat(EngineSettings.coalescer(slowStart).minPartSize()).isEqualTo(slowStart.get(MAX_REQUEST_SIZE));
    }

    @Test
    void givenVectoredSizesReachTheCoalescer() {
        StreamConfig config = StreamConfig.builder()
                .set(VECTORED_MIN_SEEK, 1L << 20)
                .set(VECTORED_MAX_MERGED_SIZE, 4L << 20)
                .set(VECTORED_DISCARD_TOLERANCE, 0)
                .set(FETCH_MAX_CONCURRENCY, 4)
                .build();
        CoalescerSettings settings = EngineSettings.coalescer(config);
        assertThat(settings.minSeek()).isEqualTo(1L << 20);
        assertThat(settings.maxMergedSize()).isEqualTo(4L << 20);
        assertThat(settings.discardTolerance()).isZero();
        assertThat(settings.maxParallelParts()).isEqualTo(4);
        assertThat(EngineSettings.planner(config).prefetchParallelism()).isEqualTo(4);
    }
}
