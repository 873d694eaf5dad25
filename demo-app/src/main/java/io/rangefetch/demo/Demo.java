package io.rangefetch.demo;

import io.rangefetch.benchmarks.Bench;
import io.rangefetch.benchmarks.BenchmarkRun;
import io.rangefetch.benchmarks.Launcher;
import io.rangefetch.benchmarks.ReaderCatalog;
import io.rangefetch.benchmarks.data.DataSet;
import io.rangefetch.benchmarks.data.ParquetSpec;
import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.env.ServerOptions;
import io.rangefetch.benchmarks.report.Figures;
import io.rangefetch.benchmarks.report.MarkdownTable;
import io.rangefetch.benchmarks.report.MarkdownTable.Column;
import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.workload.ProjectionWorkload;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The README's first command: starts an S3 server on 127.0.0.1 (MinIO when its binary is found, else
 * S3Proxy in this JVM) behind a proxy that models S3's network, writes a small Parquet data set, reads it
 * through Rangefetch and through a stream engines use today, and prints what each cost. Needs no account,
 * network or Docker; {@code --bucket} (with credentials) runs the same against real S3.
 *
 * <p>A module of its own, beside the benchmarks it borrows the runner and readers from: it is the user's first
 * look at Rangefetch, not a measurement to publish, so nothing here feeds the benchmark pages.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Reads a sample Parquet data set through Rangefetch and through a baseline stream, and "
                + "prints what each cost.")
public final class Demo implements Callable<Integer> {

    static final String BUCKET = "rangefetch-demo";
    private static final List<String> WORKLOADS = List.of("projection", "small-files");

    @Option(
            names = "--baseline",
            paramLabel = "ID",
            defaultValue = "iceberg",
            description = "The reader to compare with (default: ${DEFAULT-VALUE}, Iceberg's S3FileIO); one of: "
                    + "${COMPLETION-CANDIDATES}.",
            completionCandidates = Bench.ReaderIds.class)
    String baseline;

    @Option(
            names = "--runs",
            defaultValue = "1",
            description = "Measured runs, after one warm-up (default: ${DEFAULT-VALUE}).")
    int runs;

    @Mixin
    ServerOptions where = new ServerOptions();

    private final String[] arguments;
    private final PrintStream out;

    Demo(String[] arguments, PrintStream out) {
        this.arguments = arguments.clone();
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(Launcher.execute(new Demo(args, System.out), args));
    }

    @Override
    public Integer call() throws Exception {
        BenchmarkRun.Plan plan = new BenchmarkRun.Plan(
                ReaderCatalog.select(List.of("rangefetch", baseline)),
                DataSet.demo(),
                WORKLOADS,
                1,
                1,
                runs,
                Launcher.commandLine(Demo.class, arguments));
        BenchmarkRun.Results results;
        // a fresh machine: a temporary MinIO directory, so nothing is left behind
        try (BenchEnvironment environment = where.start(Optional.empty(), BUCKET)) {
            out.println("S3 server: " + environment.describeServer());
            out.println("Network:   " + environment.describeNetwork());
            out.println("Data:      " + describe(plan.data()) + ", written to the server first");
            out.println();
            results = BenchmarkRun.execute(environment, plan);
        }
        out.println();
        out.println(String.format(
                Locale.ROOT,
                "projection: %d of %d columns of the large file; small-files: every "
                        + "column of the small files. Median of %d run(s) after a warm-up, each with fresh clients.",
                ProjectionWorkload.COLUMNS.size(),
                ParquetSpec.COLUMNS,
                runs));
        out.println();
        out.println(table(results.description().referenceReader(), results.rows()));
        verdicts(results.rows()).forEach(out::println);
        return results.anyFailed() ? 1 : 0;
    }

    private static String describe(DataSet data) {
        return String.format(
                Locale.ROOT,
                "a %.0f MB Parquet file (%d columns, %d row groups) and %d files of %.0f MB",
                data.wide().approximateSize() / 1e6,
                ParquetSpec.COLUMNS,
                data.wide().rowGroups(),
                data.smallFiles().size(),
                data.smallFiles().get(0).approximateSize() / 1e6);
    }

    /** The benchmark's table cut to what a first look needs: time, requests and bytes. */
    static String table(String referenceReader, List<ResultRow> rows) {
        return MarkdownTable.of(
                List.of(
                        MarkdownTable.WORKLOAD,
                        MarkdownTable.READER,
                        Column.figures("time", MarkdownTable::timeOrFailed),
                        Column.figures("GETs", row -> Figures.count(row.gets())),
                        Column.figures("MB transferred", row -> Figures.megabytes(row.transferredBytes())),
                        Column.figures("MB needed", row -> Figures.megabytes(row.neededBytes())),
                        Column.figures("×" + referenceReader, row -> Figures.ratio(row.vsReference()))),
                rows);
    }

    /** One sentence per workload comparing the baseline with Rangefetch. */
    static List<String> verdicts(List<ResultRow> rows) {
        return WORKLOADS.stream()
                .flatMap(workload -> {
                    List<ResultRow> pair = rows.stream()
                            .filter(row -> row.workload().equals(workload))
                            .toList();
                    if (pair.size() != 2 || pair.stream().anyMatch(ResultRow::failed)) {
                        return Stream.empty();
                    }
                    ResultRow rangefetch = pair.get(0);
                    ResultRow other = pair.get(1);
                    StringBuilder line = new StringBuilder(String.format(
                            Locale.ROOT,
                            "%s: %s took %.2f× Rangefetch's time",
                            workload,
                            other.reader(),
                            other.vsReference()));
                    if (rangefetch.gets() != null && rangefetch.gets() > 0) {
                        line.append(String.format(
                                Locale.ROOT, " and sent %.1f× its GETs", other.gets() / (double) rangefetch.gets()));
                    }
                    return Stream.of(line.append('.').toString());
                })
                .toList();
    }
}
