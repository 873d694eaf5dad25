package io.rangefetch.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.env.ServerOptions;
import io.rangefetch.benchmarks.report.TpchPage;
import io.rangefetch.benchmarks.tpch.TpchCommand;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * TPC-H in Spark, the benchmark that decides: the 22 queries in Spark local mode through S3A's streams (classic,
 * analytics, Rangefetch's factory) and Iceberg's FileIO setups ({@code S3FileIO}, with AAL, {@code
 * RangefetchS3FileIO}), cold and warm, on the embedded server behind the shaping proxy; every result checked against
 * DuckDB's on the same files. Exit code 0 when every query ran and equalled DuckDB's, 1 otherwise, 2 for bad
 * options.
 */
@Command(
        name = "tpch",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Runs TPC-H in Spark through each S3A and Iceberg read path, cold and warm, and reports time, "
                + "GETs, HEADs and bytes per query.")
public final class Tpch implements Callable<Integer> {
    static final String BUCKET = "rangefetch-tpch";
    static final Path DEFAULT_CACHE = Path.of(System.getProperty("user.home"), ".cache", "rangefetch", "tpch");

    @Option(
            names = "--paths",
            split = ",",
            paramLabel = "ID",
            description = "Read paths, in report order (default: local-disk,s3a-classic,s3a-analytics,s3a-rangefetch,"
                    + "iceberg-local-disk,iceberg,iceberg-aal,iceberg-rangefetch; the local-disk ones are Spark and "
                    + "Iceberg on the same files and tables without S3).")
    List<String> paths = List.of(
            "local-disk",
            "s3a-classic",
            "s3a-analytics",
            "s3a-rangefetch",
            "iceberg-local-disk",
            "iceberg",
            "iceberg-aal",
            "iceberg-rangefetch");

    @Option(
            names = "--modes",
            split = ",",
            paramLabel = "cold|warm",
            description =
                    "cold: a fresh file system or FileIO per query; warm: one for all queries (default: cold,warm).")
    List<String> modes = List.of("cold", "warm");

    @Option(
            names = "--queries",
            split = ",",
            paramLabel = "QUERY",
            description = "Queries to run, e.g. 1,6,q14 (default: all 22).")
    List<String> queries = List.of();

    @Option(
            names = "--passes",
            defaultValue = "2",
            description = "Passes over the queries of the first mode per path; the last is reported, and a later mode, "
                    + "its JVM warm, runs one (default: ${DEFAULT-VALUE}).")
    int passes;

    @Option(
            names = "--iceberg-catalog",
            defaultValue = "jdbc",
            paramLabel = "jdbc|hadoop",
            description = "The Iceberg paths' catalog: jdbc (a JDBC catalog on SQLite; every metadata file is read "
                    + "through the FileIO under test) or hadoop (a Hadoop catalog on the warehouse, which finds each "
                    + "table's version through S3A, the same requests for every FileIO) (default: ${DEFAULT-VALUE}).")
    String icebergCatalog;

    @Option(
            names = "--scale-factor",
            defaultValue = "1",
            description = "TPC-H scale factor (default: ${DEFAULT-VALUE}).")
    String scaleFactor;

    @Option(
            names = "--parts",
            defaultValue = "8",
            description = "Files per table, as tpchgen-cli --parts (default: ${DEFAULT-VALUE}).")
    int parts;

    @Option(
            names = "--spark-heap",
            defaultValue = "6g",
            description = "The Spark JVM's -Xmx (default: ${DEFAULT-VALUE}).")
    String sparkHeap;

    @Option(
            names = "--spark-conf",
            paramLabel = "KEY=VALUE",
            description = "A Spark (or spark.hadoop.*) setting for every path, e.g. "
                    + "spark.hadoop.fs.s3a.rangefetch.prefetch.max-size=8MB; may repeat.")
    Map<String, String> sparkSettings = Map.of();

    @Option(names = "--request-logs", description = "Also write every request of every query to WORK/requests/.")
    boolean requestLogs;

    @Option(
            names = "--recordings",
            description = "Record each path's Spark JVM with Flight Recorder (settings=profile) into "
                    + "WORK/recordings/PATH.jfr, for ./rangefetch-timeline.")
    boolean recordings;

    @Option(
            names = "--cache-dir",
            paramLabel = "DIR",
            description = "Where the generator, the data, the expected answers and MinIO's data are kept "
                    + "(default: ~/.cache/rangefetch/tpch).")
    Path cache = DEFAULT_CACHE;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            defaultValue = "target/tpch",
            description = "Where Spark's logs, results and request logs go (default: ${DEFAULT-VALUE}).")
    Path work;

    @Option(
            names = "--report-dir",
            paramLabel = "DIR",
            description =
                    "Also write the results as the TPC-H part of DIR/BENCHMARKS.md (e.g. docs), keeping the rest.")
    Path reportDirectory;

    @Option(
            names = "--json",
            paramLabel = "FILE",
            defaultValue = "rangefetch-tpch.json",
            description = "Where to write every query's figures as JSON (default: ${DEFAULT-VALUE}).")
    Path json;

    @Option(
            names = "--repository",
            paramLabel = "DIR",
            defaultValue = ".",
            hidden = true,
            description = "The checkout (its tpch folder holds the queries and the Spark build).")
    Path repository;

    @Mixin
    ServerOptions where = new ServerOptions();

    private final String[] arguments;
    private final PrintStream out;

    Tpch(String[] arguments, PrintStream out) {
        // the ./tpch script names the checkout for the command; a user would not type it again
        List<String> typed = new java.util.ArrayList<>(List.of(arguments));
        int repositoryOption = typed.indexOf("--repository");
        if (repositoryOption >= 0 && repositoryOption + 1 < typed.size()) {
            typed.subList(repositoryOption, repositoryOption + 2).clear();
        }
        this.arguments = typed.toArray(String[]::new);
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(Launcher.execute(new Tpch(args, System.out), args));
    }

    @Override
    public Integer call() throws Exception {
        TpchCommand command = new TpchCommand(
                paths,
                modes,
                queries,
                passes,
                icebergCatalog,
                scaleFactor,
                parts,
                sparkHeap,
                sparkSettings,
                requestLogs,
                recordings,
                cache,
                work,
                repository);
        command.validate();
        command.prepareData();
        TpchCommand.Outcome outcome;
        String started = Instant.now().truncatedTo(ChronoUnit.MINUTES).toString();
        String setting;
        try (BenchEnvironment environment = where.start(Optional.of(cache.resolve("minio")), BUCKET)) {
            System.err.println("Server: " + environment.describeServer());
            System.err.println("Network: " + environment.describeNetwork());
            setting = "Server: " + environment.describeServer() + "; network " + environment.describeNetwork()
                    + "; Iceberg catalog: " + icebergCatalog + ".";
            outcome = command.run(environment);
        }
        out.println(outcome.markdown());
        if (reportDirectory != null) {
            String section = "## TPC-H in Spark\n\n"
                    + "The benchmark that decides (see the README, \"TPC-H in Spark\"). Latest run: " + started
                    + ", with\n\n```sh\n" + Launcher.commandLine(Tpch.class, arguments) + "\n```\n\n" + setting
                    + " Each figure is the last of the passes; time is Spark's for the query (planning and"
                    + " collecting included), GETs, HEADs and bytes are what the proxy served during it.\n\n"
                    + outcome.markdown().replace("\n### ", "\n### TPC-H: ").replaceFirst("^### ", "### TPC-H: ");
            System.err.println(
                    "Report: " + TpchPage.update(reportDirectory, section).toAbsolutePath());
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), outcome.json());
        System.err.println("JSON: " + json.toAbsolutePath());
        return outcome.allCorrect() ? 0 : 1;
    }
}
