package io.rangefetch.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigValuesTest {

    @Test
    void sizesAcceptBinaryUnitsInAnyCommonSpelling() {
        assertThat(ConfigValues.parseSize("k", "65536")).isEqualTo(65536);
        assertThat(ConfigValues.parseSize("k", "64KiB")).isEqualTo(65536);
        assertThat(ConfigValues.parseSize("k", "64kB")).isEqualTo(65536);
        assertThat(ConfigValues.parseSize("k", "64 K")).isEqualTo(65536);
        assertThat(ConfigValues.parseSize("k", "8MB")).isEqualTo(8L << 20);
        assertThat(ConfigValues.parseSize("k", "8mib")).isEqualTo(8L << 20);
        assertThat(ConfigValues.parseSize("k", "1.5GiB")).isEqualTo(3L << 29);
        assertThat(ConfigValues.parseSize("k", "2T")).isEqualTo(2L << 40);
        assertThat(ConfigValues.parseSize("k", "12B")).isEqualTo(12);
    }

    @Test
    void badSizesNameTheKeyAndTheValue() {
        assertThatThrownBy(() -> ConfigValues.parseSize("read.x", "-1"))
                .hasMessage("Invalid value '-1' for read.x: expected a size such as 65536, 64KiB or 8MB");
        assertThatThrownBy(() -> ConfigValues.parseSize("read.x", "8XB")).hasMessageContaining("unknown unit 'xb'");
        assertThatThrownBy(() -> ConfigValues.parseSize("read.x", "0.5B")).hasMessageContaining("whole number");
        assertThatThrownBy(() -> ConfigValues.parseSize("read.x", "")).hasMessageContaining("read.x");
    }

    @Test
    void durationsNeedAUnit() {
        assertThat(ConfigValues.parseDuration("t", "30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(ConfigValues.parseDuration("t", "500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(ConfigValues.parseDuration("t", "5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(ConfigValues.parseDuration("t", "2min")).isEqualTo(Duration.ofMinutes(2));
        assertThat(ConfigValues.parseDuration("t", "1h")).isEqualTo(Duration.ofHours(1));
        assertThat(ConfigValues.parseDuration("t", "1d")).isEqualTo(Duration.ofDays(1));
        assertThat(ConfigValues.parseDuration("t", "250us")).isEqualTo(Duration.ofNanos(250_000));
        assertThatThrownBy(() -> ConfigValues.parseDuration("t", "30")).hasMessageContaining("with a unit");
        assertThatThrownBy(() -> ConfigValues.parseDuration("t", "30 fortnights"))
                .hasMessageContaining("unknown unit");
    }

    @Test
    void memoryIsASizeOrAShareOfTheHeap() {
        assertThat(ConfigValues.parseMemory("m", "10%", 1000)).isEqualTo(100);
        assertThat(ConfigValues.parseMemory("m", "2.5%", 1000)).isEqualTo(25);
        assertThat(ConfigValues.parseMemory("m", "1KiB", 1000)).isEqualTo(1024);
        assertThatThrownBy(() -> ConfigValues.parseMemory("m", "0%", 1000)).hasMessageContaining("above 0%");
        assertThatThrownBy(() -> ConfigValues.parseMemory("m", "x%", 1000)).hasMessageContaining("'x%'");
    }

    @Test
    void ratesAreSizesPerSecond() {
        assertThat(ConfigValues.parseRate("r", "85MB/s")).isEqualTo(85L << 20);
        assertThat(ConfigValues.parseRate("r", " 10 MiB/S ")).isEqualTo(10L << 20);
        assertThat(ConfigValues.parseRate("r", "1048576")).isEqualTo(1L << 20);
        assertThatThrownBy(() -> ConfigValues.parseRate("r", "85MB/h"))
                .hasMessage("Invalid value '85MB/h' for r: expected a rate such as 85MB/s or 10MiB/s");
    }

    @Test
    void fractionsAreDecimalsOrPercentages() {
        assertThat(ConfigValues.parseFraction("f", "0.25")).isEqualTo(0.25);
        assertThat(ConfigValues.parseFraction("f", "25%")).isEqualTo(0.25);
        assertThat(ConfigValues.parseFraction("f", "2")).isEqualTo(2.0);
        assertThatThrownBy(() -> ConfigValues.parseFraction("f", "-1")).hasMessageContaining("'-1'");
        assertThatThrownBy(() -> ConfigValues.parseFraction("f", "1/4")).hasMessageContaining("fraction");
    }

    @Test
    void integersMustBeWhole() {
        assertThat(ConfigValues.parseInt("n", " 16 ")).isEqualTo(16);
        assertThatThrownBy(() -> ConfigValues.parseInt("n", "1.5")).hasMessageContaining("whole number");
    }
}
