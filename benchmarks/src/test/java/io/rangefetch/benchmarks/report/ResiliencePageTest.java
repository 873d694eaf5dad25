package io.rangefetch.benchmarks.report;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.resilience.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scenario runs and the comparison share BENCHMARKS.md: each rewrites only its own part. */
class ResiliencePageTest {

    @TempDir
    Path dir;

    @Test
    void aScenarioRunReplacesItsOwnSubsectionAndKeepsTheRest() throws Exception {
        Path page = dir.resolve(BenchmarksPage.PAGE);
        Files.writeString(page, "# Benchmarks\n\nthe comparison\n", UTF_8);

        ResiliencePage.update(dir, Map.of(Scenario.SLOW_FIRST_BYTE, "slow, first\n"));
        ResiliencePage.update(dir, Map.of(Scenario.THROTTLE_10, "ten, first\n"));
        ResiliencePage.update(dir, Map.of(Scenario.SLOW_FIRST_BYTE, "slow, second\n"));

        String text = Files.readString(page, UTF_8);
        assertThat(text).startsWith("# Benchmarks\n\nthe comparison\n\n" + ResiliencePage.MARKER);
        assertThat(text).contains("ten, first", "slow, second").doesNotContain("slow, first");
        assertThat(text.indexOf("ten, first")).as("scenarios in report order").isLessThan(text.indexOf("slow, second"));
        assertThat(text.split(ResiliencePage.MARKER, -1)).hasSize(2);
    }

    @Test
    void theComparisonKeepsTheResiliencePart() throws Exception {
        ResiliencePage.update(dir, Map.of(Scenario.RATE_LIMIT, "limited\n"));
        RunDescription run = new RunDescription(
                "bench",
                "2026-11-23T00:00:00Z",
                Map.of(),
                "server",
                "network",
                false,
                1,
                0,
                1,
                "Rangefetch",
                List.of(),
                List.of());

        BenchmarksPage.write(dir, run, List.of(TestRows.ok("scan", "Rangefetch", 1.0, 1, 0)));

        String text = Files.readString(dir.resolve(BenchmarksPage.PAGE), UTF_8);
        assertThat(text).startsWith("# Benchmarks").contains("| data scale |", "limited\n");
        assertThat(text.indexOf("| data scale |")).isLessThan(text.indexOf(ResiliencePage.MARKER));
    }
}
