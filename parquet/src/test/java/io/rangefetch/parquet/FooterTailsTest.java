package io.rangefetch.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class FooterTailsTest {

    @Test
    void nothingIsExpectedBeforeAFooterIsSeen() {
        assertThat(new FooterTails().expected()).isEmpty();
    }

    @Test
    void theLargestRecentFooterWithAQuarterAndOneKibibyteMoreIsExpected() {
        FooterTails tails = new FooterTails();
        tails.record(4000);
        tails.record(8000);
        tails.record(6000);
        assertThat(tails.expected()).isEqualTo(OptionalLong.of(8000 + 2000 + 1024));
    }

    @Test
    void onlyTheLastFootersCount() {
        FooterTails tails = new FooterTails();
        tails.record(100_000);
        for (int i = 0; i < FooterTails.REMEMBERED - 1; i++) {
            tails.record(4000);
        }
        assertThat(tails.expected()).isEqualTo(OptionalLong.of(100_000 + 25_000 + 1024));
        tails.record(4000);
        assertThat(tails.expected()).as("the large footer is forgotten").isEqualTo(OptionalLong.of(4000 + 1000 + 1024));
    }

    @Test
    void aNonPositiveLengthIsIgnored() {
        FooterTails tails = new FooterTails();
        tails.record(0);
        tails.record(-5);
        assertThat(tails.expected()).isEmpty();
    }
}
