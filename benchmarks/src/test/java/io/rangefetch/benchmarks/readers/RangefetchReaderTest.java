package io.rangefetch.benchmarks.readers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The variants the resilience scenarios compare: named after their setting, checked before any run. */
class RangefetchReaderTest {

    @Test
    void aVariantIsNamedAfterItsSettingsAndSaysSoInItsConfiguration() {
        RangefetchReader governorOff = new RangefetchReader().withSetting("throttle.enabled", "false");

        assertThat(new RangefetchReader().name()).isEqualTo("Rangefetch");
        assertThat(governorOff.name()).isEqualTo("Rangefetch, throttle.enabled=false");
        assertThat(new RangefetchReader(RangefetchReader.Client.NETTY)
                        .withSetting("hedge.enabled", "true")
                        .name())
                .isEqualTo("Rangefetch (Netty), hedge.enabled=true");
        assertThat(governorOff.configuration())
                .contains("StreamConfig defaults but throttle.enabled=false", "retries off");
        assertThat(new RangefetchReader(RangefetchReader.Client.CRT).configuration())
                .contains("StreamConfig.defaults()", "the fewest the CRT allows");
    }

    @Test
    void unknownKeysBadValuesAndRepeatsFailAtOnce() {
        RangefetchReader reader = new RangefetchReader();

        assertThatThrownBy(() -> reader.withSetting("throttle.enable", "false"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("throttle.enable");
        assertThatThrownBy(() -> reader.withSetting("hedge.enabled", "sometimes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sometimes");
        assertThatThrownBy(() -> reader.withSetting("hedge.enabled", "true").withSetting("hedge.enabled", "false"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("set already");
    }
}
