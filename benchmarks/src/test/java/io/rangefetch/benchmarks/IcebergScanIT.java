package io.rangefetch.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.data.DataSet;
import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.env.ServerKind;
import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.workload.Workloads;
import io.rangefetch.testing.proxy.NetworkModel;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The iceberg-scan workload end to end on S3Proxy with the three FileIO readers and a tiny table: every row
 * gives the generator's answer (a wrong one would fail the row) and the proxy counts its requests. A second run
 * finds the table stored and reuses it. That RangefetchS3FileIO sends no HEAD is IcebergEndToEndSuite's to check.
 */
class IcebergScanIT {

    @Test
    void everyFileIOReadsTheTableRightAndTheStoredTableIsReused() throws Exception {
        BenchmarkRun.Plan plan = new BenchmarkRun.Plan(
                ReaderCatalog.select(List.of("iceberg-rangefetch", "iceberg", "iceberg-aal", "rangefetch")),
                DataSet.benchmark(0.005),
                List.of(Workloads.ICEBERG_SCAN),
                0.005,
                0,
                1,
                "bench --workloads iceberg-scan");

        try (BenchEnvironment environment = BenchEnvironment.local(
                ServerKind.S3PROXY, Optional.empty(), NetworkModel.unshaped(), "iceberg-scan-it")) {
            List<ResultRow> rows = BenchmarkRun.execute(environment, plan).rows();

            assertThat(rows)
                    .extracting(ResultRow::reader)
                    .as("rangefetch is no FileIO: no row")
                    .containsExactly("RangefetchS3FileIO", "Iceberg S3FileIO", "Iceberg S3FileIO + AAL");
            for (ResultRow row : rows) {
                assertThat(row.status())
                        .as("%s: %s", row.reader(), row.failure())
                        .isEqualTo(ResultRow.OK);
                assertThat(row.gets()).as(row.reader()).isPositive();
                assertThat(row.neededBytes()).as(row.reader()).isPositive();
            }

            assertThat(BenchmarkRun.prepareTable(environment, plan.data(), plan.workloads()))
                    .as("the stored table, found again")
                    .hasValueSatisfying(
                            table -> assertThat(table.scannedDataFiles()).isEqualTo(32));
        }
    }
}
