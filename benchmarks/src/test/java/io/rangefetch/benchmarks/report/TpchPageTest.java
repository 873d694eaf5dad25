package io.rangefetch.benchmarks.report;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TpchPageTest {
    @TempDir
    Path directory;

    @Test
    void theTpchPartGoesUnderTheTitleAndReplacesOnlyItself() throws Exception {
        Path page = directory.resolve(BenchmarksPage.PAGE);
        Files.writeString(page, "# Benchmarks\n\nRangefetch against the streams.\n\n## Machine\n\nsome facts\n", UTF_8);
        TpchPage.update(directory, "## TPC-H in Spark\n\nfirst run\n");
        assertThat(Files.readString(page, UTF_8))
                .isEqualTo("# Benchmarks\n\n" + TpchPage.START
                        + "\n## TPC-H in Spark\n\nfirst run\n" + TpchPage.END
                        + "\n\nRangefetch against the streams.\n\n"
                        + "## Machine\n\nsome facts\n");
        TpchPage.update(directory, "## TPC-H in Spark\n\nsecond run\n");
        String twice = Files.readString(page, UTF_8);
        assertThat(twice).contains("second run").doesNotContain("first run").contains("## Machine\n\nsome facts\n");
        assertThat(twice.indexOf(TpchPage.START)).isEqualTo(twice.lastIndexOf(TpchPage.START));
    }

    @Test
    void aComparisonRunKeepsTheTpchPart() throws Exception {
        TpchPage.update(directory, "## TPC-H in Spark\n\nkept\n");
        String before = Files.readString(directory.resolve(BenchmarksPage.PAGE), UTF_8);
        String part = TpchPage.of(before);
        assertThat(part).startsWith(TpchPage.START).contains("kept").endsWith(TpchPage.END + "\n");
        assertThat(TpchPage.withPart("# Benchmarks\n\nnew comparison\n", part))
                .isEqualTo("# Benchmarks\n\n" + part + "\nnew comparison\n");
        assertThat(TpchPage.withPart("# Benchmarks\n\nnew comparison\n", ""))
                .isEqualTo("# Benchmarks\n\nnew comparison\n");
    }
}
