package io.rangefetch.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ColumnHistoryTest {
    private static final Set<String> SCHEMA = Set.of("id", "name", "score", "address.city");

    @Test
    void predictsWhatReadersOfASchemaReadAndForgetsColumnsTheyStopReading() {
        ColumnHistory history = new ColumnHistory();
        assertThat(history.predicted(SCHEMA)).isEmpty();
        history.record(SCHEMA, Set.of("id", "score"));
        assertThat(history.predicted(SCHEMA)).containsExactlyInAnyOrder("id", "score");
        assertThat(history.predicted(Set.of("id", "score")))
                .as("another schema")
                .isEmpty();
        // the query changes: score is no longer read; it fades after a couple of files, name comes in at once
        history.record(SCHEMA, Set.of("id", "name"));
        assertThat(history.predicted(SCHEMA)).containsExactlyInAnyOrder("id", "name", "score");
        history.record(SCHEMA, Set.of("id", "name"));
        assertThat(history.predicted(SCHEMA)).containsExactlyInAnyOrder("id", "name");
    }

    @Test
    void aColumnReadOftenFadesNoSlowerThanItsCappedWeightAllows() {
        ColumnHistory history = new ColumnHistory();
        for (int i = 0; i < 100; i++) {
            history.record(SCHEMA, Set.of("id"));
        }
        for (int i = 0; i < 4; i++) {
            history.record(SCHEMA, Set.of("name"));
        }
        assertThat(history.predicted(SCHEMA)).containsExactly("name");
    }
}
