package io.rangefetch.benchmarks.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.benchmarks.data.IcebergTableSpec.Answer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class IcebergTableSpecTest {

    private final IcebergTableSpec spec = new IcebergTableSpec("t", 8, 88_000, 4, 2);

    @Test
    void twelveColumnsPartitionedByPartAndTheSelectedOnesExist() {
        assertThat(IcebergTableSpec.schema().columns()).hasSize(IcebergTableSpec.COLUMNS);
        assertThat(IcebergTableSpec.SELECTED)
                .hasSize(3)
                .allSatisfy(name ->
                        assertThat(IcebergTableSpec.schema().findField(name)).isNotNull());
        assertThat(IcebergTableSpec.partitionSpec().fields())
                .singleElement()
                .satisfies(field -> assertThat(field.name()).isEqualTo("part"));
    }

    @Test
    void theFilterKeepsHalfThePartitionsAndDeletesFallOnEveryFourthFile() {
        assertThat(IntStream.range(0, spec.files()).filter(file -> spec.partitionOf(file) < spec.partitions() / 2))
                .hasSize(spec.files() / 2);
        assertThat(IntStream.range(0, spec.files()).filter(spec::hasDeletes)).containsExactly(1, 5);
        assertThat(spec.deleted(1, 7)).isTrue();
        assertThat(spec.deleted(1, 8)).isFalse();
        assertThat(spec.deleted(0, 7)).isFalse();
        assertThat(spec.filter().toString()).contains("part", "< 2");
    }

    @Test
    void valuesAreAFunctionOfFileRowAndColumn() {
        assertThat(spec.rowsPerFile()).isEqualTo(1000);
        assertThat(spec.value(3, 10, 0)).isEqualTo(3 * 1000 + 10);
        assertThat(spec.value(3, 10, 1)).isEqualTo(3);
        assertThat(spec.value(3, 10, 5))
                .isEqualTo(new IcebergTableSpec("other", 8, 88_000, 4, 2).value(3, 10, 5))
                .isNotEqualTo(spec.value(3, 11, 5))
                .isNotEqualTo(spec.value(3, 10, 6))
                .isNotEqualTo(spec.value(2, 10, 5));
    }

    @Test
    void theExpectedAnswerCountsTheRowsOfTheKeptPartitionsLessTheDeletedOnes() {
        Answer expected = spec.expected();
        // files 0, 1, 4, 5 are kept; 1 and 5 lose one row in 50
        assertThat(expected.rows()).isEqualTo(4 * 1000 - 2 * (1000 / IcebergTableSpec.DELETE_EVERY));
        assertThat(expected).isEqualTo(spec.expected());
        assertThat(new IcebergTableSpec("t", 8, 88_000 + 88, 4, 2).expected()).isNotEqualTo(expected);
    }

    @Test
    void theMarkerChangesWithEveryParameterButThePrefix() {
        assertThat(spec.marker())
                .isEqualTo(new IcebergTableSpec("elsewhere", 8, 88_000, 4, 2).marker())
                .isNotEqualTo(new IcebergTableSpec("t", 9, 88_000, 4, 2).marker())
                .isNotEqualTo(new IcebergTableSpec("t", 8, 88_001, 4, 2).marker())
                .isNotEqualTo(new IcebergTableSpec("t", 8, 88_000, 6, 2).marker())
                .isNotEqualTo(new IcebergTableSpec("t", 8, 88_000, 4, 3).marker());
    }

    @Test
    void badParametersAreRejected() {
        assertThatThrownBy(() -> new IcebergTableSpec("t", 0, 1, 2, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IcebergTableSpec("t", 1, 1, 3, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("even partitions");
        assertThatThrownBy(() -> new IcebergTableSpec("t", 1, 1, 2, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
