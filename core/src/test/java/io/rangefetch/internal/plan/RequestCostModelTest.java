package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class RequestCostModelTest {
    private static final RequestCostModel S3 = new RequestCostModel(Duration.ofMillis(30), 85L << 20);

    @Test
    void oneRoundTripIsLatencyTimesBandwidthRoundedDown() {
        // 0.030 s × 89,128,960 B/s = 2,673,868.8 B
        assertThat(S3.bytesIn(1)).isEqualTo(2_673_868);
        // 4 × 2,673,868.8 = 10,695,475.2: the product is rounded once, not each round trip
        assertThat(S3.bytesIn(4)).isEqualTo(10_695_475);
        assertThat(S3.bytesIn(0)).isZero();
    }

    @Test
    void whatComesToWholeBytesIsExact() {
        // 0.1 is not a double; a floating-point product could land a byte below
        assertThat(new RequestCostModel(Duration.ofMillis(100), 10L << 20).bytesIn(1))
                .isEqualTo(1L << 20);
        assertThat(new RequestCostModel(Duration.ofMillis(300), 10).bytesIn(1)).isEqualTo(3);
        assertThat(new RequestCostModel(Duration.ofSeconds(1, 1), 1_000_000_000L).bytesIn(1))
                .isEqualTo(1_000_000_001L);
        assertThat(new RequestCostModel(Duration.ofNanos(999_999_999), 1).bytesIn(1))
                .isZero();
    }

    @Test
    void noLatencyMovesNothingAndMoreThanALongSaturates() {
        assertThat(new RequestCostModel(Duration.ZERO, Long.MAX_VALUE).bytesIn(4))
                .isZero();
        assertThat(new RequestCostModel(Duration.ofDays(365_000), Long.MAX_VALUE).bytesIn(1))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(new RequestCostModel(Duration.ofSeconds(2), Long.MAX_VALUE / 2).bytesIn(Integer.MAX_VALUE))
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aPartIsOneLatencysWorthWithinTheRequestSizes() {
        assertThat(S3.minPartSize(64L << 10, 8L << 20)).isEqualTo(2_673_868);
        assertThat(S3.minPartSize(4L << 20, 8L << 20))
                .as("raised to the minimum request")
                .isEqualTo(4L << 20);
        assertThat(S3.minPartSize(64L << 10, 1L << 20))
                .as("cut to the maximum request")
                .isEqualTo(1L << 20);
        assertThat(new RequestCostModel(Duration.ZERO, 1).minPartSize(1, 2)).isEqualTo(1);
    }

    @Test
    void aModelOutsideItsRangeIsRefusedWithTheValue() {
        assertThatThrownBy(() -> new RequestCostModel(Duration.ofMillis(-1), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.001S");
        assertThatThrownBy(() -> new RequestCostModel(Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 0");
        assertThatThrownBy(() -> new RequestCostModel(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> S3.bytesIn(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> S3.minPartSize(2, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2")
                .hasMessageContaining("1");
    }

    @Property(tries = 500)
    void nRoundTripsAreNTimesOneRoundTripBeforeRounding(
            @ForAll @LongRange(min = 0, max = 10_000_000_000L) long latencyNanos,
            @ForAll @LongRange(min = 1, max = 100_000_000_000L) long bandwidth,
            @ForAll @IntRange(min = 1, max = 64) int roundTrips) {
        RequestCostModel model = new RequestCostModel(Duration.ofNanos(latencyNanos), bandwidth);
        long one = model.bytesIn(1);
        long many = model.bytesIn(roundTrips);
        // floor(n x) is at least n floor(x) and below n (floor(x) + 1)
        assertThat(many).isGreaterThanOrEqualTo(roundTrips * one).isLessThan(roundTrips * (one + 1));
        assertThat(model.bytesIn(roundTrips + 1)).isGreaterThanOrEqualTo(many);
    }
}
