package io.rangefetch.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.benchmarks.data.DataSet;
import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.env.ServerKind;
import io.rangefetch.benchmarks.listing.ListingResults;
import io.rangefetch.benchmarks.report.BenchmarksPage;
import io.rangefetch.benchmarks.report.JsonReport;
import io.rangefetch.benchmarks.report.MarkdownReport;
import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.workload.Workloads;
import io.rangefetch.testing.proxy.NetworkModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner end to end on S3Proxy, with two trivial readers: one honest, one that changes bytes. */
class BenchmarkRunIT {

    @TempDir
    Path dir;

    @Test
    void everyWorkloadRunsAndAReaderReturningWrongBytesFailsWithoutATime() throws Exception {
        BenchmarkRun.Plan plan = new BenchmarkRun.Plan(
                List.of(new SdkTestReader("honest", false), new SdkTestReader("liar", true)),
                DataSet.benchmark(0.01),
                Workloads.NAMES,
                0.01,
                0,
                2,
                "bench --scale 0.01");

        BenchmarkRun.Results results;
        try (BenchEnvironment environment =
                BenchEnvironment.local(ServerKind.S3PROXY, Optional.empty(), NetworkModel.unshaped(), "bench-it")) {
            results = BenchmarkRun.execute(environment, plan);
        }

        // iceberg-scan runs only on FileIO readers and list-then-read on Rangefetch's: neither of these is one;
        // listing is measured apart
        int rows = 2 * (Workloads.NAMES.size() - 3);
        assertThat(results.rows())
                .hasSize(rows)
                .extracting(ResultRow::workload)
                .doesNotContain(Workloads.ICEBERG_SCAN, Workloads.LIST_THEN_READ, Workloads.LISTING);
        ListingResults listing = results.listing().orElseThrow();
        assertThat(listing.rows()).as("3 wanted sets × 3 strategies").hasSize(9);
        for (ResultRow row : listing.rows()) {
            assertThat(row.status()).as(row.toString()).isEqualTo(ResultRow.OK);
            assertThat(row.runs()).isEqualTo(2);
            assertThat(row.neededBytes())
                    .as("verified against what was written")
                    .isPositive();
            assertThat(row.lists()).as(row.toString()).isPositive();
            assertThat(row.gets()).as(row.toString()).isZero();
        }
        for (ResultRow row : results.rows()) {
            if (row.reader().equals("honest")) {
                assertThat(row.status()).as(row.toString()).isEqualTo(ResultRow.OK);
                assertThat(row.runs()).isEqualTo(2);
                assertThat(row.neededBytes()).isPositive();
                assertThat(row.vsReference()).isEqualTo(1.0);
                assertThat(row.idealSeconds())
                        .as("no bound without a modelled network")
                        .isNull();
            } else {
                assertThat(row.status()).as(row.toString()).isEqualTo(ResultRow.FAILED);
                assertThat(row.seconds()).isNull();
            }
        }
        assertThat(results.rows())
                .filteredOn(row -> row.workload().equals("sequential") && !row.failed())
                .singleElement()
                .satisfies(row -> assertThat(row.neededBytes())
                        .isEqualTo(DataSet.benchmark(0.01).text().size()));
        assertThat(results.rows())
                .filteredOn(row -> row.workload().equals("orc-vectored") && !row.failed())
                .singleElement()
                .satisfies(row -> assertThat(row.vectoredFallback()).isTrue());

        Path json = dir.resolve("results.json");
        results.json().write(json);
        JsonReport read = JsonReport.read(json);
        assertThat(read.rows()).isEqualTo(results.rows());
        assertThat(read.samples()).hasSize(rows + 2 * listing.rows().size());
        assertThat(read.listing()).isEqualTo(listing);

        Path page = BenchmarksPage.write(dir, results.description(), results.rows(), results.listingReport());
        assertThat(Files.readString(page))
                .contains(
                        "bench --scale 0.01",
                        "| sequential | honest |",
                        "**FAILED** liar · sequential: wrong bytes",
                        "## Listing many partitions",
                        "| first-last | Rangefetch |");
        byte[] png = Files.readAllBytes(dir.resolve(BenchmarksPage.CHART));
        assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo("PNG");
        assertThat(new MarkdownReport(results.description(), results.rows()).table())
                .contains("| orc-vectored † | honest |");
    }
}
