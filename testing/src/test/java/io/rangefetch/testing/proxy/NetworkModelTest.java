package io.rangefetch.testing.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class NetworkModelTest {

    @Test
    void s3InRegionIsTwentyMillisecondsAndEightyMegabytesPerSecondPerConnection() {
        NetworkModel model = NetworkModel.s3InRegion();

        assertThat(model).isEqualTo(new NetworkModel(Duration.ofMillis(20), 80_000_000L, 0));
        assertThat(model.shapes()).isTrue();
        assertThat(model.describe()).isEqualTo("20 ms first byte, 80 MB/s per connection, no total cap");
    }

    @Test
    void unshapedHoldsNothingBack() {
        NetworkModel model = NetworkModel.unshaped();

        assertThat(model).isEqualTo(new NetworkModel(Duration.ZERO, 0, 0));
        assertThat(model.shapes()).isFalse();
        assertThat(model.describe()).isEqualTo("no first-byte delay, no per-connection cap, no total cap");
    }

    @Test
    void withersChangeOneSettingEach() {
        NetworkModel model = NetworkModel.unshaped()
                .withFirstByteDelay(Duration.ofMillis(5))
                .withConnectionBytesPerSecond(1_500_000)
                .withTotalBytesPerSecond(2_000_000_000L);

        assertThat(model).isEqualTo(new NetworkModel(Duration.ofMillis(5), 1_500_000, 2_000_000_000L));
        assertThat(model.describe()).isEqualTo("5 ms first byte, 1.5 MB/s per connection, 2 GB/s in total");
        assertThat(model.withConnectionBytesPerSecond(0)
                        .withFirstByteDelay(Duration.ZERO)
                        .shapes())
                .isTrue();
    }

    @Test
    void describeUsesDecimalUnitsAndSmallDurations() {
        assertThat(new NetworkModel(Duration.ofNanos(250_000), 999, 12_345).describe())
                .isEqualTo("250 µs first byte, 999 B/s per connection, 12.3 kB/s in total");
        assertThat(new NetworkModel(Duration.ofMillis(1500), 0, 0).describe()).startsWith("1.5 s first byte");
    }

    @Test
    void negativeValuesAreRejectedWithTheirName() {
        assertThatThrownBy(() -> NetworkModel.unshaped().withFirstByteDelay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("firstByteDelay");
        assertThatThrownBy(() -> NetworkModel.unshaped().withConnectionBytesPerSecond(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectionBytesPerSecond is negative: -1");
        assertThatThrownBy(() -> NetworkModel.unshaped().withTotalBytesPerSecond(-5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("totalBytesPerSecond is negative: -5");
        assertThatThrownBy(() -> new NetworkModel(null, 0, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("firstByteDelay is null");
    }
}
