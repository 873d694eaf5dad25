package io.rangefetch.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.report.ResultRow;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoTest {

    @Test
    void theTableShowsTimeRequestsAndBytesAndAFailedRowShowsNoFigures() {
        List<ResultRow> rows =
                List.of(row("projection", "Rangefetch", 0.5, 10L, 1.0), failed("projection", "Iceberg S3FileIO"));

        assertThat(Demo.table("Rangefetch", rows)).isEqualTo("""
                | workload | reader | time | GETs | MB transferred | MB needed | ×Rangefetch |
                |---|---|---:|---:|---:|---:|---:|
                | projection | Rangefetch | 0.500 s | 10 | 2.00 | 1.00 | 1.00× |
                | projection | Iceberg S3FileIO | **FAILED** | - | - | - | - |
                """);
    }

    @Test
    void aVerdictComparesTheBaselineWithRangefetchWhereBothRan() {
        List<ResultRow> rows = List.of(
                row("projection", "Rangefetch", 0.5, 10L, 1.0),
                row("projection", "Iceberg S3FileIO", 1.5, 25L, 3.0),
                row("small-files", "Rangefetch", 0.5, 10L, 1.0),
                failed("small-files", "Iceberg S3FileIO"));

        assertThat(Demo.verdicts(rows))
                .containsExactly("projection: Iceberg S3FileIO took 3.00× Rangefetch's time and sent 2.5× its GETs.");
    }

    private static ResultRow row(String workload, String reader, double seconds, Long gets, double vsReference) {
        return new ResultRow(
                "clean",
                workload,
                reader,
                null,
                ResultRow.OK,
                null,
                1,
                seconds,
                gets,
                0L,
                0L,
                2_000_000L,
                1_000_000L,
                0L,
                0L,
                0L,
                null,
                null,
                false,
                vsReference,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    private static ResultRow failed(String workload, String reader) {
        return ResultRow.failed("clean", workload, reader, null, "wrong bytes");
    }
}
