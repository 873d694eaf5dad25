package io.rangefetch.benchmarks.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.resilience.ResilienceSummary.Measured;
import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.RunSample;
import io.rangefetch.benchmarks.run.Traffic;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Faulted rows beside their clean rows, and the verdicts on Rangefetch's targets. */
class ResilienceSummaryTest {

    @Test
    void aFaultedRowIsSetBesideItsCleanRowAndJudgedOnlyWithTheFeatureOn() {
        List<ResultRow> rows = ResilienceSummary.of(List.of(
                measured(Scenario.THROTTLE_10, "true", run(1_000, 100, 0), run(1_250, 110, 11)),
                measured(Scenario.THROTTLE_10, "false", run(1_000, 100, 0), run(1_400, 120, 12)),
                new Measured(
                        Scenario.THROTTLE_50,
                        "S3A analytics",
                        Optional.empty(),
                        row(run(1_000, 10, 0)),
                        row(run(19_000, 40, 20)))));

        ResultRow on = rows.get(0);
        assertThat(on.seconds()).isEqualTo(1.25);
        assertThat(on.cleanSeconds()).isEqualTo(1.0);
        assertThat(on.vsClean()).isEqualTo(1.25);
        assertThat(on.slowDowns()).isEqualTo(11);
        assertThat(on.gets()).isEqualTo(110);
        assertThat(on.cleanGetsPerSecond()).isEqualTo(100.0);
        assertThat(on.target()).isEqualTo("met: 1.25× clean ≤ 1.3×");
        assertThat(rows.get(1).target()).as("the feature off is for comparison").isNull();
        assertThat(rows.get(2).target()).as("peers have no target").isNull();
        assertThat(rows.get(2).vsClean()).isEqualTo(19.0);
    }

    @Test
    void theGovernorIsJudgedAgainstTheSameReaderWithoutIt() {
        List<ResultRow> met = ResilienceSummary.of(List.of(
                measured(Scenario.RATE_LIMIT, "true", run(1_000, 200, 0), run(2_100, 210, 10)),
                measured(Scenario.RATE_LIMIT, "false", run(1_000, 200, 0), run(2_000, 300, 100))));
        List<ResultRow> missed = ResilienceSummary.of(List.of(
                measured(Scenario.RATE_LIMIT, "true", run(1_000, 200, 0), run(2_300, 210, 10)),
                measured(Scenario.RATE_LIMIT, "false", run(1_000, 200, 0), run(2_000, 300, 100))));

        assertThat(met.get(0).target()).isEqualTo("met: 90% fewer 503s (≥ 80%), 1.05× the time without it (≤ 1.1×)");
        assertThat(missed.get(0).target()).startsWith("missed: 90% fewer 503s (≥ 80%), 1.15×");
    }

    @Test
    void readLatenciesArePooledOverTheMeasuredRuns() {
        // 100 reads of 10 ms and one of 2 s in each of two runs: the p99 (rank 200 of 202) is still 10 ms
        RunSample first = run(1_000, 100, 0, latencies(100, 2_000));
        RunSample second = run(1_200, 100, 0, latencies(100, 2_000));
        List<ResultRow> rows = ResilienceSummary.of(List.of(new Measured(
                Scenario.SLOW_FIRST_BYTE,
                "Rangefetch",
                Optional.of("true"),
                row(run(1_000, 100, 0)),
                row(first, second))));

        assertThat(rows.get(0).readMedianMillis()).isEqualTo(10.0);
        assertThat(rows.get(0).readP99Millis()).isEqualTo(10.0);
        assertThat(rows.get(0).target()).isEqualTo("met: 1.10× clean (≤ 1.3×), p99 1.0× the median (≤ 3×)");
    }

    @Test
    void aFailedRowHasNoFiguresAndMissesItsTarget() {
        RowResult failed =
                new RowResult("Rangefetch", "projection", "throttle-50", Optional.of("wrong bytes: x"), List.of());
        List<ResultRow> rows = ResilienceSummary.of(List.of(
                new Measured(Scenario.THROTTLE_50, "Rangefetch", Optional.of("true"), row(run(1_000, 10, 0)), failed)));

        assertThat(rows.get(0).failed()).isTrue();
        assertThat(rows.get(0).seconds()).isNull();
        assertThat(rows.get(0).cleanSeconds()).isEqualTo(1.0);
        assertThat(rows.get(0).target()).isEqualTo("missed: the run failed");
    }

    private static Measured measured(Scenario scenario, String feature, RunSample clean, RunSample faulted) {
        return new Measured(scenario, "Rangefetch", Optional.of(feature), row(clean), row(faulted));
    }

    private static RowResult row(RunSample... samples) {
        return new RowResult("Rangefetch", "random", "any", Optional.empty(), List.of(samples));
    }

    private static RunSample run(long millis, long gets, long slowDowns) {
        return run(millis, gets, slowDowns, List.of());
    }

    private static RunSample run(long millis, long gets, long slowDowns, List<Long> readNanos) {
        return new RunSample(
                "Rangefetch",
                "random",
                "any",
                false,
                1,
                millis * 1_000_000,
                new Traffic(gets, 0, 1_000, slowDowns, 0, 0),
                1_000,
                0,
                0,
                false,
                readNanos);
    }

    private static List<Long> latencies(int fast, long slowMillis) {
        List<Long> nanos = new java.util.ArrayList<>();
        for (int i = 0; i < fast; i++) {
            nanos.add(10_000_000L);
        }
        nanos.add(slowMillis * 1_000_000);
        return nanos;
    }
}
