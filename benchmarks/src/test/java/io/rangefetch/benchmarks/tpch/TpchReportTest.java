package io.rangefetch.benchmarks.tpch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TpchReportTest {

    @Test
    void eachFamilyAndModeHasItsTotalsAndRangefetchItsSpeedUpOverTheFastestOther() {
        TpchReport report = new TpchReport(List.of(
                row("s3a-classic", "q01", 4.0, 100, 80_000_000, Optional.empty()),
                row("s3a-classic", "q06", 2.0, 50, 40_000_000, Optional.empty()),
                row("s3a-analytics", "q01", 3.0, 60, 90_000_000, Optional.empty()),
                row("s3a-analytics", "q06", 1.0, 30, 45_000_000, Optional.empty()),
                row("s3a-rangefetch", "q01", 1.5, 40, 70_000_000, Optional.empty()),
                row("s3a-rangefetch", "q06", 0.5, 20, 30_000_000, Optional.of("differs from DuckDB: row 1"))));
        String markdown = report.markdown();
        assertThat(markdown)
                .contains("### S3A, cold")
                .doesNotContain("Iceberg")
                .contains("| S3A classic stream | 6.0 s | 150 | 0 | 120 | all 2 equal DuckDB's |")
                .contains("| **S3A with RangefetchStreamFactory** | 2.0 s (2.00× the fastest other) | 60 | 0 | 100 |"
                        + " 1 wrong or failed |")
                .contains("| q06 | 2.00 | 50 | 40.0 | 1.00 | 30 | 45.0 | 0.50 ✗ | 20 | 30.0 |")
                .contains("- ✗ s3a-rangefetch q06: differs from DuckDB: row 1");
        assertThat(report.allCorrect()).isFalse();
    }

    private static QueryResult row(
            String path, String query, double seconds, long gets, long bytes, Optional<String> error) {
        return new QueryResult(path, "cold", query, (long) (seconds * 1e9), 1, gets, 0, bytes, 0, error);
    }
}
