package io.rangefetch.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.RunSample;
import io.rangefetch.benchmarks.run.Traffic;
import io.rangefetch.benchmarks.workload.LowerBound;
import io.rangefetch.benchmarks.workload.Workload;
import io.rangefetch.testing.proxy.NetworkModel;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class SummaryTest {

    private static final Workload SCAN = new Workload() {
        @Override
        public String name() {
            return "scan";
        }

        @Override
        public String description() {
            return "a scan";
        }

        @Override
        public LowerBound lowerBound() {
            return LowerBound.parallel(1);
        }

        @Override
        public Outcome run(ReaderSession session) {
            throw new UnsupportedOperationException();
        }
    };

    private static final NetworkModel MODEL = new NetworkModel(Duration.ofMillis(100), 1_000_000, 0);

    @Test
    void mediansLeaveWarmupsOutAndRatiosDivideByTheReferenceAndTheBound() {
        RowResult reference = row(
                "fast",
                sample("fast", true, 9_000_000_000L, 100),
                sample("fast", false, 3_000_000_000L, 10),
                sample("fast", false, 1_000_000_000L, 30),
                sample("fast", false, 2_000_000_000L, 20));
        RowResult other =
                row("slow", sample("slow", false, 4_000_000_000L, 40), sample("slow", false, 6_000_000_000L, 60));

        List<ResultRow> rows = Summary.of(List.of(reference, other), List.of(SCAN), Optional.of(MODEL), "fast");

        ResultRow fast = rows.get(0);
        assertThat(fast.seconds()).isEqualTo(2.0);
        assertThat(fast.gets()).isEqualTo(20);
        assertThat(fast.runs()).isEqualTo(3);
        assertThat(fast.vsReference()).isEqualTo(1.0);
        // 1 × 100 ms + 1.6 MB / (16 × 1 MB/s)
        assertThat(fast.idealSeconds()).isEqualTo(0.2);
        assertThat(fast.vsIdeal()).isEqualTo(10.0);
        ResultRow slow = rows.get(1);
        assertThat(slow.seconds()).as("mean of the middle two").isEqualTo(5.0);
        assertThat(slow.gets()).isEqualTo(50);
        assertThat(slow.vsReference()).isEqualTo(2.5);
    }

    @Test
    void aWorkloadTheReferenceDidNotRunIsComparedWithItsFirstReader() {
        // "fast" does not run scan (as the stream reader does not run iceberg-scan): the first reader that did is
        // the reference there
        RowResult fileIo = row("fast-fileio", sample("fast-fileio", false, 2_000_000_000L, 20));
        RowResult other = row("slow", sample("slow", false, 6_000_000_000L, 60));

        List<ResultRow> rows = Summary.of(List.of(fileIo, other), List.of(SCAN), Optional.of(MODEL), "fast");

        assertThat(rows.get(0).vsReference()).isEqualTo(1.0);
        assertThat(rows.get(1).vsReference()).isEqualTo(3.0);
    }

    @Test
    void failedRowsAndUncountedTrafficHaveNoFigures() {
        RowResult failed = new RowResult("liar", "scan", Optional.of("wrong bytes: scan"), List.of());
        RunSample uncounted = new RunSample(
                "real", "scan", "clean", false, 1, 1_000_000_000L, Traffic.UNKNOWN, 100, 0, 0, false, List.of());

        List<ResultRow> rows =
                Summary.of(List.of(failed, row("real", uncounted)), List.of(SCAN), Optional.empty(), "liar");

        assertThat(rows.get(0).failed()).isTrue();
        assertThat(rows.get(0).seconds()).isNull();
        assertThat(rows.get(0).failure()).isEqualTo("wrong bytes: scan");
        assertThat(rows.get(1).gets()).isNull();
        assertThat(rows.get(1).transferredBytes()).isNull();
        assertThat(rows.get(1).vsReference()).as("the reference failed").isNull();
        assertThat(rows.get(1).idealSeconds()).as("nothing modelled").isNull();
    }

    private static RowResult row(String reader, RunSample... samples) {
        return new RowResult(reader, "scan", Optional.empty(), List.of(samples));
    }

    private static RunSample sample(String reader, boolean warmup, long nanos, long gets) {
        return new RunSample(
                reader,
                "scan",
                "clean",
                warmup,
                1,
                nanos,
                new Traffic(gets, 0, 2_000_000, 0, 0, 0),
                1_600_000,
                50_000_000,
                10_000_000,
                false,
                List.of());
    }

    @Test
    void percentilesAreNearestRank() {
        List<Long> values = LongStream.rangeClosed(1, 200).boxed().toList();

        assertThat(Summary.percentile(values, 0.5)).isEqualTo(100);
        assertThat(Summary.percentile(values, 0.99)).isEqualTo(198);
        assertThat(Summary.percentile(List.of(7L), 0.99)).isEqualTo(7);
    }
}
