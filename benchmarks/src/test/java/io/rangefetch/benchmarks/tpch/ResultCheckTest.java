package io.rangefetch.benchmarks.tpch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResultCheckTest {

    @Test
    void equalRowsAgreeAndNumbersMayDifferInTheLastCent() {
        assertThat(ResultCheck.difference(List.of("A\tF\t3.50\t1994-01-01"), List.of("A\tF\t3.50\t1994-01-01")))
                .isEmpty();
        assertThat(ResultCheck.difference(List.of("123141078.23"), List.of("123141078.22")))
                .isEmpty();
        assertThat(ResultCheck.difference(List.of("-0.01"), List.of("0.00"))).isEmpty();
    }

    @Test
    void aDifferentValueRowOrCountIsNamed() {
        assertThat(ResultCheck.difference(List.of("1\tx"), List.of("1\ty")))
                .hasValue("row 1 field 2: 'y' where 'x' was expected");
        assertThat(ResultCheck.difference(List.of("10.00"), List.of("10.02")))
                .hasValue("row 1 field 1: '10.02' where '10.00' was expected");
        assertThat(ResultCheck.difference(List.of("1", "2"), List.of("1"))).hasValue("1 rows where 2 were expected");
        assertThat(ResultCheck.difference(List.of("1\t2"), List.of("1"))).hasValue("row 1 has 1 fields, not 2");
        assertThat(ResultCheck.difference(List.of("\\N"), List.of("0"))).isPresent();
    }

    @Test
    void largeNumbersAreComparedRelatively() {
        assertThat(ResultCheck.same("123456789012.34", "123456789012.44"))
                .as("within 1e-12")
                .isTrue();
        assertThat(ResultCheck.same("123456789012.34", "123456789012.84")).isFalse();
    }
}
