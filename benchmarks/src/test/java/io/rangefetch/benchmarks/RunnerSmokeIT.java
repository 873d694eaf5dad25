package io.rangefetch.benchmarks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.report.JsonReport;
import io.rangefetch.benchmarks.report.SummaryRow;
import io.rangefetch.benchmarks.run.RunSample;
import io.rangefetch.benchmarks.workload.Workloads;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI's check that the runner works: every reader on every workload, on S3Proxy, with tiny data and one run
 * each. It checks that every row ran, read the right bytes and was counted; it never looks at a time.
 */
class RunnerSmokeIT {

    @Test
    void everyReaderRunsEveryWorkloadAndReadsTheRightBytes(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("smoke.json");
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();

        int exitCode = Bench.run(new String[] {"--server", "s3proxy", "--scale", "0.005", "--runs", "1",
                "--warmups", "0", "--shaping", "off", "--json", json.toString()}, new PrintStream(stdout, true, UTF_8));

        JsonReport report = JsonReport.read(json);
        // iceberg-scan runs only on the FileIO readers among the defaults: iceberg-rangefetch, iceberg, iceberg-aal
        long fileIoReaders = ReaderCatalog.DEFAULTS.stream().filter(id -> id.startsWith("iceberg")).count();
        assertThat(fileIoReaders).isEqualTo(3);
        assertThat(report.rows())
                .extracting(SummaryRow::workload, SummaryRow::reader)
                .hasSize((int) ((Workloads.NAMES.size() - 1) * ReaderCatalog.DEFAULTS.size() + fileIoReaders))
                .doesNotHaveDuplicates();
        for (SummaryRow row : report.rows()) {
            assertThat(row.status()).as("%s · %s: %s", row.reader(), row.workload(), row.failure())
                    .isEqualTo(SummaryRow.OK);
            assertThat(row.neededBytes()).as(row.toString()).isPositive();
            assertThat(row.gets()).as(row.toString()).isPositive();
            // not compared with the bytes needed: overlapping reads served from one cache may need more than
            // was sent
            assertThat(row.transferredBytes()).as(row.toString()).isPositive();
        }
        assertThat(report.samples()).hasSize(report.rows().size()).noneMatch(RunSample::warmup);
        assertThat(exitCode).isZero();
        assertThat(stdout.toString(UTF_8)).contains("| workload | reader | median time |", "| projection | Rangefetch |",
                "| iceberg-scan | Iceberg S3FileIO |");
    }
}
