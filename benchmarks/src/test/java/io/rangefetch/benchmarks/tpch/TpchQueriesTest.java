package io.rangefetch.benchmarks.tpch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TpchQueriesTest {

    @Test
    void queriesAreNamedHowEverTheyAreTyped() {
        assertThat(TpchQueries.ALL).hasSize(22).startsWith("q01").endsWith("q22");
        assertThat(TpchQueries.parse("6")).isEqualTo("q06");
        assertThat(TpchQueries.parse("Q6")).isEqualTo("q06");
        assertThat(TpchQueries.parse("q14")).isEqualTo("q14");
        assertThatThrownBy(() -> TpchQueries.parse("q23"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("q23");
        assertThatThrownBy(() -> TpchQueries.parse("six")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyQueryHasItsTextAndOneStatement() throws Exception {
        Path texts = TpchData.queries(Path.of("..").toAbsolutePath().normalize());
        for (String query : TpchQueries.ALL) {
            String statement = Files.readAllLines(texts.resolve(query + ".sql")).stream()
                    .filter(line -> !line.strip().startsWith("--"))
                    .collect(java.util.stream.Collectors.joining("\n"));
            assertThat(statement).as(query).containsIgnoringCase("select").doesNotContain(";");
        }
    }

    @Test
    void readPathsAreKnownByTheirIds() {
        assertThat(ReadPath.parse("s3a-rangefetch")).isEqualTo(ReadPath.S3A_RANGEFETCH);
        assertThat(ReadPath.ICEBERG_RANGEFETCH.iceberg()).isTrue();
        assertThat(ReadPath.ICEBERG_RANGEFETCH.rangefetch()).isTrue();
        assertThat(ReadPath.S3A_ANALYTICS.rangefetch()).isFalse();
        assertThatThrownBy(() -> ReadPath.parse("s3a-fast"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("s3a-classic");
    }
}
