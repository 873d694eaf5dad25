package io.rangefetch.benchmarks.report;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.listing.ListingResults;
import io.rangefetch.benchmarks.report.RunDescription.Item;
import io.rangefetch.benchmarks.resilience.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListingReportTest {

    private static final RunDescription RUN = new RunDescription(
            "bench --workloads listing",
            "2026-11-23T00:00:00Z",
            Map.of(),
            "server",
            "network",
            true,
            1,
            0,
            3,
            "Rangefetch",
            List.of(),
            List.of());

    @TempDir
    Path dir;

    @Test
    void theSectionShowsCallsTimesAndVerdictsPerSetAndStrategyAndTheListThenReadRows() {
        String section = new ListingReport(
                        RUN,
                        results("met: 3 LIST calls ≤ 3"),
                        List.of(
                                summary("small-files", "Rangefetch", 40, 0),
                                summary("list-then-read", "Rangefetch", 40, 1),
                                summary("small-files", "S3A classic", 40, 0)))
                .section();

        assertThat(section)
                .startsWith("## Listing many partitions: 2400x10\n")
                .contains(
                        "bench --workloads listing",
                        "| first-last | Rangefetch | 3 | 0.100 s | 1.00× | 200 | verified | met: 3 LIST calls ≤ 3 |",
                        "| first-last | per location (8 threads) | - | **FAILED** |",
                        "- **FAILED** per location (8 threads) · first-last: wrong listing",
                        "- first-last: the first 100",
                        "| small-files | Rangefetch | 1.000 s | 0 | 40 | 0 |",
                        "| list-then-read | Rangefetch | 1.000 s | 1 | 40 | 0 |")
                .doesNotContain("S3A classic");
    }

    @Test
    void withoutListThenReadRowsThereIsNoSuchTable() {
        String section =
                new ListingReport(RUN, results("x"), List.of(summary("small-files", "Rangefetch", 40, 0))).section();

        assertThat(section).doesNotContain("List, then read", "small-files |");
    }

    @Test
    void aComparisonWithoutListingKeepsTheListingSectionsAndAListingReplacesOnlyItsLayouts() throws Exception {
        Path page = dir.resolve(BenchmarksPage.PAGE);
        BenchmarksPage.write(dir, RUN, List.of(), Optional.of(report("2400x10", "first")));
        assertThat(Files.readString(page, UTF_8))
                .as("the listing alone: no reader to chart")
                .doesNotContain(BenchmarksPage.CHART);
        assertThat(dir.resolve(BenchmarksPage.CHART)).doesNotExist();
        ResiliencePage.update(dir, Map.of(Scenario.THROTTLE_10, "ten\n"));
        BenchmarksPage.write(dir, RUN, List.of(), Optional.of(report("24000x1", "qubole")));

        BenchmarksPage.write(dir, RUN, List.of(summary("small-files", "Rangefetch", 40, 0)));
        String kept = Files.readString(page, UTF_8);
        assertThat(kept)
                .contains(
                        "| first |",
                        "| qubole |",
                        "ten\n",
                        "<!-- listing 24000x1: written by ./bench --workloads listing --listing-layout 24000x1 -->");
        assertThat(kept.indexOf("| first |"))
                .as("the default layout first")
                .isLessThan(kept.indexOf(BenchmarksPage.LISTING_END))
                .isLessThan(kept.indexOf("| qubole |"));
        assertThat(kept.indexOf("<!-- /listing 24000x1 -->")).isLessThan(kept.indexOf(ResiliencePage.MARKER));

        BenchmarksPage.write(dir, RUN, List.of(), Optional.of(report("2400x10", "second")));
        String replaced = Files.readString(page, UTF_8);
        assertThat(replaced).contains("| second |", "| qubole |", "ten\n").doesNotContain("| first |");
        assertThat(replaced.split(BenchmarksPage.LISTING_START, -1)).hasSize(2);
        assertThat(BenchmarksPage.listingSections(replaced)).containsOnlyKeys("2400x10", "24000x1");
    }

    /** A report of one Rangefetch row whose verdict says which one it is. */
    private static ListingReport report(String shape, String verdict) {
        return new ListingReport(
                RUN,
                new ListingResults(
                        shape,
                        shape,
                        List.of(),
                        List.of(),
                        List.of(TestRows.listed("first-last", "Rangefetch", 0.1, 3, 200, verdict))),
                List.of());
    }

    private static ListingResults results(String verdict) {
        return new ListingResults(
                "2400x10",
                "2,400 partitions",
                List.of(new Item("first-last", "the first 100 and the last 100")),
                List.of(new Item("Rangefetch", "StreamFactory.list")),
                List.of(
                        TestRows.listed("first-last", "Rangefetch", 0.1, 3, 200, verdict),
                        TestRows.failed("first-last", "per location (8 threads)", "wrong listing")));
    }

    private static ResultRow summary(String workload, String reader, long gets, long lists) {
        return TestRows.ok(workload, reader, 1.0, gets, lists);
    }
}
