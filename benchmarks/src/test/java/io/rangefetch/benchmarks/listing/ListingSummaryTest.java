package io.rangefetch.benchmarks.listing;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.RunSample;
import io.rangefetch.benchmarks.run.Traffic;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ListingSummaryTest {

    private static final String RANGEFETCH = "Rangefetch";
    private static final String PER_LOCATION = "per location";
    private static final String PREFIX = "common prefix";

    @Test
    void theBlogsCaseMeetsEveryTargetInThreeCallsAndTenTimesFaster() {
        List<ResultRow> rows = ListingSummary.of(
                List.of(
                        row(RANGEFETCH, WantedSet.FIRST_LAST, 3, 100),
                        row(PER_LOCATION, WantedSet.FIRST_LAST, 200, 1_000),
                        row(PREFIX, WantedSet.FIRST_LAST, 24, 500)),
                RANGEFETCH,
                PER_LOCATION);

        assertThat(rows).extracting(ResultRow::reader).containsExactly(RANGEFETCH, PER_LOCATION, PREFIX);
        assertThat(rows.get(0).target())
                .isEqualTo("met: 3 LIST calls ≤ 3; met: 3 LIST calls ≤ 24, the better "
                        + "baseline's; met: 10.0× faster than one listing per location (≥ 10×)");
        assertThat(rows.get(1).target()).as("baselines are not judged").isNull();
        assertThat(rows.get(1).vsReference()).isEqualTo(10.0);
        assertThat(rows.get(1).lists()).isEqualTo(200);
        assertThat(rows.get(1).neededBytes()).isEqualTo(7);
    }

    @Test
    void moreCallsThanABaselineOrTooLittleSpeedMissesAndAllIsJudgedOnCallsOnly() {
        List<ResultRow> rows = ListingSummary.of(
                List.of(
                        row(RANGEFETCH, WantedSet.RANDOM, 30, 100),
                        row(PER_LOCATION, WantedSet.RANDOM, 200, 900),
                        row(PREFIX, WantedSet.RANDOM, 24, 500),
                        row(RANGEFETCH, WantedSet.ALL, 24, 500),
                        row(PER_LOCATION, WantedSet.ALL, 2_400, 9_000),
                        row(PREFIX, WantedSet.ALL, 24, 500)),
                RANGEFETCH,
                PER_LOCATION);

        assertThat(rows.get(0).target())
                .isEqualTo("missed: 30 LIST calls > 24, the better baseline's; "
                        + "missed: 9.0× faster than one listing per location (< 10×)");
        assertThat(rows.get(3).target()).isEqualTo("met: 24 LIST calls ≤ 24, the better baseline's");
        assertThat(rows.get(5).vsReference()).isEqualTo(1.0);
    }

    @Test
    void aFailedRowHasNoFiguresAndMissesWhileAFailedBaselineLeavesTheVerdictUnknown() {
        List<ResultRow> rows = ListingSummary.of(
                List.of(
                        row(RANGEFETCH, WantedSet.ALL, 24, 500),
                        new RowResult(PER_LOCATION, WantedSet.ALL, Optional.of("wrong listing"), List.of()),
                        row(PREFIX, WantedSet.ALL, 24, 500),
                        new RowResult(RANGEFETCH, WantedSet.RANDOM, Optional.of("boom"), List.of()),
                        row(PER_LOCATION, WantedSet.RANDOM, 200, 900)),
                RANGEFETCH,
                PER_LOCATION);

        assertThat(rows.get(0).target()).isEqualTo("unknown: no calls of both baselines");
        assertThat(rows.get(1).failed()).isTrue();
        assertThat(rows.get(1).seconds()).isNull();
        assertThat(rows.get(1).failure()).isEqualTo("wrong listing");
        assertThat(rows.get(3).target()).isEqualTo("missed: the listing failed");
        assertThat(rows.get(4).vsReference())
                .as("no Rangefetch time to divide by")
                .isNull();
    }

    @Test
    void withoutAProxyCallsAreUnknown() {
        RunSample uncounted = new RunSample(
                RANGEFETCH, WantedSet.ALL, "clean", false, 1, 1_000_000, Traffic.UNKNOWN, 7, 0, 0, false, List.of());
        List<ResultRow> rows = ListingSummary.of(
                List.of(new RowResult(RANGEFETCH, WantedSet.ALL, Optional.empty(), List.of(uncounted))),
                RANGEFETCH,
                PER_LOCATION);

        assertThat(rows.get(0).lists()).isNull();
        assertThat(rows.get(0).target()).isEqualTo("unknown: LIST calls not counted (no proxy)");
    }

    @Test
    void figuresAreMediansOfTheMeasuredRunsWithoutWarmUps() {
        RowResult runs = new RowResult(
                RANGEFETCH,
                WantedSet.ALL,
                Optional.empty(),
                List.of(
                        sample(RANGEFETCH, WantedSet.ALL, true, 99, 9_000),
                                sample(RANGEFETCH, WantedSet.ALL, false, 3, 100),
                        sample(RANGEFETCH, WantedSet.ALL, false, 5, 300),
                                sample(RANGEFETCH, WantedSet.ALL, false, 4, 200)));

        ResultRow row =
                ListingSummary.of(List.of(runs), RANGEFETCH, PER_LOCATION).get(0);

        assertThat(row.runs()).isEqualTo(3);
        assertThat(row.lists()).isEqualTo(4);
        assertThat(row.seconds()).isEqualTo(0.2);
    }

    private static RowResult row(String strategy, String set, long lists, long millis) {
        return new RowResult(strategy, set, Optional.empty(), List.of(sample(strategy, set, false, lists, millis)));
    }

    private static RunSample sample(String strategy, String set, boolean warmup, long lists, long millis) {
        return new RunSample(
                strategy,
                set,
                "clean",
                warmup,
                1,
                millis * 1_000_000,
                new Traffic(0, 0, 1_000, 0, 0, lists),
                7,
                0,
                0,
                false,
                List.of());
    }
}
