package io.rangefetch.benchmarks.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.testing.proxy.NetworkModel;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class NetworkOptionsTest {

    @Test
    void theDefaultIsS3InRegionAndOffIsUnshaped() {
        assertThat(parse().model()).isEqualTo(NetworkModel.s3InRegion());
        assertThat(parse("--shaping", "off").model()).isEqualTo(NetworkModel.unshaped());
    }

    @Test
    void figuresOverrideTheBaseModel() {
        NetworkModel model = parse("--first-byte-delay", "50ms", "--connection-rate", "40MB/s", "--total-rate", "1GiB")
                .model();

        assertThat(model).isEqualTo(new NetworkModel(Duration.ofMillis(50), 40_000_000, 1L << 30));
    }

    @Test
    void ratesTakeDecimalAndBinaryUnits() {
        assertThat(NetworkOptions.rate("r", "0")).isZero();
        assertThat(NetworkOptions.rate("r", "1500")).isEqualTo(1500);
        assertThat(NetworkOptions.rate("r", "2.5 MB")).isEqualTo(2_500_000);
        assertThat(NetworkOptions.rate("r", "8MiB/s")).isEqualTo(8L << 20);
        assertThatThrownBy(() -> NetworkOptions.rate("--total-rate", "fast"))
                .hasMessageContaining("--total-rate")
                .hasMessageContaining("fast");
        assertThatThrownBy(() -> NetworkOptions.rate("--total-rate", "3 parsecs"))
                .hasMessageContaining("parsecs");
    }

    private static NetworkOptions parse(String... args) {
        NetworkOptions options = new NetworkOptions();
        new CommandLine(options).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
        return options;
    }

    @Test
    void durationsReadAsRangefetchsConfigurationReadsThem() {
        assertThat(NetworkOptions.duration("d", "20ms")).isEqualTo(Duration.ofMillis(20));
        assertThat(NetworkOptions.duration("d", "1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(NetworkOptions.duration("d", "0ms")).isZero();
        assertThatThrownBy(() -> NetworkOptions.duration("--first-byte-delay", "20"))
                .hasMessageContaining("--first-byte-delay")
                .hasMessageContaining("20");
        assertThatThrownBy(() -> NetworkOptions.duration("--first-byte-delay", "soon"))
                .hasMessageContaining("soon");
    }
}
