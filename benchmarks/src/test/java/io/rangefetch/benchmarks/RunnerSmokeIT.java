package io.rangefetch.benchmarks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.report.JsonReport;
import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.run.RunSample;
import io.rangefetch.benchmarks.workload.Workloads;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI's check that the runner works: every reader on every workload, on S3Proxy, with tiny data and one run
 * each. It checks that every row ran, read the right bytes and was counted; it never looks at a time. What
 * Rangefetch itself sends (a listed object opened with no HEAD, one listing per directory) is ListingSuite's to
 * check.
 */
class RunnerSmokeIT {

    @Test
    void everyReaderRunsEveryWorkloadAndReadsTheRightBytes(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("smoke.json");
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();

        int exitCode = Bench.run(
                new String[] {
                    "--server",
                    "s3proxy",
                    "--scale",
                    "0.005",
                    "--runs",
                    "1",
                    "--warmups",
                    "0",
                    "--shaping",
                    "off",
                    "--json",
                    json.toString()
                },
                new PrintStream(stdout, true, UTF_8));

        JsonReport report = JsonReport.read(json);
        List<ReaderUnderTest> readers = ReaderCatalog.select(ReaderCatalog.DEFAULTS);
        assertThat(report.rows())
                .extracting(ResultRow::workload, ResultRow::reader)
                // iceberg-scan runs only on the FileIO readers, list-then-read only on Rangefetch's, listing apart
                .hasSize((Workloads.NAMES.size() - 3) * readers.size()
                        + (int) readers.stream()
                                .filter(ReaderUnderTest::isIcebergFileIO)
                                .count()
                        + (int) readers.stream()
                                .filter(ReaderUnderTest::isRangefetch)
                                .count())
                .doesNotHaveDuplicates();
        for (ResultRow row : report.rows()) {
            assertThat(row.status())
                    .as("%s · %s: %s", row.reader(), row.workload(), row.failure())
                    .isEqualTo(ResultRow.OK);
            assertThat(row.neededBytes()).as(row.toString()).isPositive();
            assertThat(row.gets()).as(row.toString()).isPositive();
            // not compared with the bytes needed: overlapping reads served from one cache may need more than
            // was sent
            assertThat(row.transferredBytes()).as(row.toString()).isPositive();
        }
        assertThat(report.listing().rows()).hasSize(9).allSatisfy(row -> {
            assertThat(row.status())
                    .as("%s · %s: %s", row.reader(), row.workload(), row.failure())
                    .isEqualTo(ResultRow.OK);
            assertThat(row.neededBytes())
                    .as("verified against what was written")
                    .isPositive();
            assertThat(row.lists()).isPositive();
        });
        assertThat(report.samples())
                .hasSize(report.rows().size() + report.listing().rows().size())
                .noneMatch(RunSample::warmup);
        assertThat(exitCode).isZero();
        assertThat(stdout.toString(UTF_8))
                .contains(
                        "| workload | reader | median time |",
                        "| projection | Rangefetch |",
                        "| iceberg-scan | Iceberg S3FileIO |",
                        "## Listing many partitions",
                        "| all | common prefix |");
    }
}
