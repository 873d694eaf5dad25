package io.rangefetch.benchmarks;

import io.rangefetch.benchmarks.data.DataSet;
import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.env.ServerOptions;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.report.BenchmarksPage;
import io.rangefetch.benchmarks.report.MarkdownReport;
import io.rangefetch.benchmarks.workload.Workloads;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The scenario runner's command line: measures every reader on every workload against one S3 server behind
 * one network-shaping proxy and reports a markdown table (stdout), JSON (a file) and, on request, {@code
 * BENCHMARKS.md} with a chart. Progress goes to stderr.
 *
 * <p>The exit code is 0 when every row ran, 1 when a reader failed a workload (the report says which and
 * why), 2 for bad options.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Measures Rangefetch against the S3 streams engines use today on the same server and network.")
public final class Bench implements Callable<Integer> {

    static final String BUCKET = "rangefetch-bench";
    static final Path DEFAULT_MINIO_DATA =
            Path.of(System.getProperty("user.home"), ".cache", "rangefetch", "bench-minio");

    @Option(names = "--readers", split = ",", paramLabel = "ID",
            description = "Readers to measure, in report order with rangefetch first, the reference (default: "
                    + "rangefetch,iceberg,s3a-classic,s3a-analytics,aal; known: ${COMPLETION-CANDIDATES}).",
            completionCandidates = ReaderIds.class)
    List<String> readers = ReaderCatalog.DEFAULTS;

    @Option(names = "--workloads", split = ",", paramLabel = "NAME",
            description = "Workloads to run (default: all: ${COMPLETION-CANDIDATES}).",
            completionCandidates = WorkloadNames.class)
    List<String> workloads = Workloads.NAMES;

    @Option(names = "--runs", defaultValue = "3", description = "Measured runs per row (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--warmups", defaultValue = "1", description = "Warm-up runs per row (default: ${DEFAULT-VALUE}).")
    int warmups;

    @Option(names = "--scale", defaultValue = "1",
            description = "Fraction of the full data sizes, for quick checks, e.g. 0.01 (default: ${DEFAULT-VALUE}).")
    double scale;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "MinIO's data directory, kept between runs so data is generated once (default: "
                    + "~/.cache/rangefetch/bench-minio).")
    Path dataDirectory;

    @Option(names = "--json", paramLabel = "FILE", defaultValue = "rangefetch-bench.json",
            description = "Where to write every run as JSON (default: ${DEFAULT-VALUE}).")
    Path json;

    @Option(names = "--report-dir", paramLabel = "DIR",
            description = "Also write BENCHMARKS.md and its chart there (e.g. docs).")
    Path reportDirectory;

    @Mixin
    ServerOptions where = new ServerOptions();

    private final String[] arguments;
    private final PrintStream out;

    Bench(String[] arguments, PrintStream out) {
        this.arguments = arguments.clone();
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the command in this JVM; answers the exit code. */
    static int run(String[] args, PrintStream out) {
        return Launcher.execute(new Bench(args, out), args);
    }

    @Override
    public Integer call() throws Exception {
        List<ReaderUnderTest> selected = ReaderCatalog.select(readers);
        BenchmarkRun.Plan plan = new BenchmarkRun.Plan(selected, DataSet.benchmark(scale), workloads, scale, warmups,
                runs, Launcher.commandLine("bench", arguments));
        BenchmarkRun.Results results;
        Path minioData = dataDirectory != null ? dataDirectory : DEFAULT_MINIO_DATA;
        try (BenchEnvironment environment = where.start(Optional.of(minioData), BUCKET)) {
            System.err.println("Server: " + environment.describeServer());
            System.err.println("Network: " + environment.describeNetwork());
            results = BenchmarkRun.execute(environment, plan);
        }
        MarkdownReport report = new MarkdownReport(results.description(), results.rows());
        out.println(report.table());
        out.println(report.notes());
        results.json().write(json);
        System.err.println("JSON: " + json.toAbsolutePath());
        if (reportDirectory != null) {
            Path page = BenchmarksPage.write(reportDirectory, results.description(), results.rows());
            System.err.println("Report: " + page.toAbsolutePath());
        }
        return results.anyFailed() ? 1 : 0;
    }

    /** For picocli's help: the reader ids. */
    static final class ReaderIds implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return ReaderCatalog.ids().iterator();
        }
    }

    /** For picocli's help: the workload names. */
    static final class WorkloadNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Workloads.NAMES.iterator();
        }
    }
}
