package io.rangefetch.benchmarks;

import io.rangefetch.benchmarks.data.DataSet;
import io.rangefetch.benchmarks.data.ListingShape;
import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.env.ServerOptions;
import io.rangefetch.benchmarks.readers.RangefetchReader;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.report.BenchmarksPage;
import io.rangefetch.benchmarks.report.MarkdownReport;
import io.rangefetch.benchmarks.report.ResiliencePage;
import io.rangefetch.benchmarks.resilience.Scenario;
import io.rangefetch.benchmarks.run.FaultPlan.RateLimit;
import io.rangefetch.benchmarks.workload.Workloads;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * <p>With {@code --scenarios} it runs the resilience scenarios instead: workloads clean and under injected
 * faults, reported as tables per scenario (stdout, JSON, and a section of {@code BENCHMARKS.md} that the
 * comparison keeps).
 *
 * <p>The exit code is 0 when every row ran, 1 when a reader failed a workload (the report says which and
 * why), 2 for bad options.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Measures Rangefetch against the S3 streams engines use today on the same server and network.")
public final class Bench implements Callable<Integer> {

    static final String BUCKET = "rangefetch-bench";
    static final double DEFAULT_RATE_LIMIT = 160;
    static final int DEFAULT_RATE_LIMIT_BURST = 8;
    static final Path DEFAULT_MINIO_DATA =
            Path.of(System.getProperty("user.home"), ".cache", "rangefetch", "bench-minio");

    @Option(
            names = "--readers",
            split = ",",
            paramLabel = "ID",
            description = "Readers to measure, in report order with rangefetch first, the reference (default: "
                    + "rangefetch,iceberg-rangefetch,iceberg,s3a-classic,s3a-analytics,s3a-rangefetch,aal,iceberg-aal; known: "
                    + "${COMPLETION-CANDIDATES}).",
            completionCandidates = ReaderIds.class)
    List<String> readers = ReaderCatalog.DEFAULTS;

    @Option(
            names = "--rangefetch-setting",
            paramLabel = "KEY=VALUE",
            description = "A StreamConfig setting for the readers that build their own StreamFactory (rangefetch, "
                    + "rangefetch-netty, rangefetch-crt), over the defaults; repeatable. Their names show it, so a "
                    + "report tells which settings a row was measured with (for example "
                    + "throttle.noise-test=false, to measure the governor without its noise test).")
    Map<String, String> rangefetchSettings = new LinkedHashMap<>();

    @Option(
            names = "--workloads",
            split = ",",
            paramLabel = "NAME",
            description = "Workloads to run (default: all: ${COMPLETION-CANDIDATES}). With --scenarios: only these "
                    + "of the scenarios' workloads.",
            completionCandidates = WorkloadNames.class)
    List<String> workloads;

    @Option(
            names = "--scenarios",
            split = ",",
            paramLabel = "NAME",
            description = "Run these resilience scenarios instead of the comparison: each scenario's workloads "
                    + "clean and under the faults the proxy injects, Rangefetch with the answering feature on "
                    + "and off (known: ${COMPLETION-CANDIDATES}; throttle-10/-50: projection and sequential with "
                    + "10%%/50%% of GETs answered 503 SlowDown, governor on/off; rate-limit: random (8 concurrent "
                    + "readers) above --rate-limit, governor on/off; slow-first-byte: random with 2%% of GETs held "
                    + "2 s before their first byte, hedging on/off).",
            completionCandidates = ScenarioIds.class)
    List<String> scenarios = List.of();

    @Option(
            names = "--rate-limit",
            paramLabel = "REQUESTS/S",
            defaultValue = "" + DEFAULT_RATE_LIMIT,
            description = "The rate-limit scenario's limit: GETs and HEADs per second above which the proxy "
                    + "answers 503 SlowDown (default: ${DEFAULT-VALUE}, about half what 8 random readers reach "
                    + "unthrottled on the default network model).")
    double rateLimit;

    @Option(
            names = "--rate-limit-burst",
            paramLabel = "REQUESTS",
            defaultValue = "" + DEFAULT_RATE_LIMIT_BURST,
            description = "Requests the rate limit lets through at once after a pause (default: ${DEFAULT-VALUE}).")
    int rateLimitBurst;

    @Option(
            names = "--opentelemetry",
            description = "Register Rangefetch's metrics with an OpenTelemetry SDK that collects them every second "
                    + "(into memory), to measure what the instruments cost.")
    boolean openTelemetry;

    @Option(names = "--runs", defaultValue = "3", description = "Measured runs per row (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--warmups", defaultValue = "1", description = "Warm-up runs per row (default: ${DEFAULT-VALUE}).")
    int warmups;

    @Option(
            names = "--scale",
            defaultValue = "1",
            description = "Fraction of the full data sizes, for quick checks, e.g. 0.01 (default: ${DEFAULT-VALUE}).")
    double scale;

    @Option(
            names = "--listing-layout",
            paramLabel = "PARTITIONSxFILES",
            defaultValue = "2400x10",
            description = "The listing workload's partitions and objects per partition at full scale (--scale "
                    + "scales the partitions and the first and last 100 wanted): 2400x10 (default) or Qubole's "
                    + "24000x1. Each layout is written once, under a root of its own.")
    String listingLayout;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "MinIO's data directory, kept between runs so data is generated once (default: "
                    + "~/.cache/rangefetch/bench-minio).")
    Path dataDirectory;

    @Option(
            names = "--json",
            paramLabel = "FILE",
            defaultValue = "rangefetch-bench.json",
            description = "Where to write every run as JSON (default: ${DEFAULT-VALUE}).")
    Path json;

    @Option(
            names = "--report-dir",
            paramLabel = "DIR",
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

    private ReaderUnderTest withSettings(RangefetchReader reader) {
        RangefetchReader configured = reader;
        for (Map.Entry<String, String> setting : rangefetchSettings.entrySet()) {
            configured = configured.withSetting(setting.getKey(), setting.getValue());
        }
        return configured;
    }

    @Override
    public Integer call() throws Exception {
        List<ReaderUnderTest> selected = ReaderCatalog.select(readers).stream()
                .map(reader -> reader instanceof RangefetchReader own ? withSettings(own) : reader)
                .toList();
        if (!scenarios.isEmpty()) {
            return resilience(selected);
        }
        BenchmarkRun.Plan plan = new BenchmarkRun.Plan(
                selected,
                DataSet.benchmark(scale),
                workloads != null ? workloads : Workloads.NAMES,
                scale,
                warmups,
                runs,
                Launcher.commandLine(Bench.class, arguments),
                ListingShape.parse(listingLayout));
        BenchmarkRun.Results results;
        try (BenchEnvironment environment = startEnvironment();
                OpenTelemetryCollection metrics = openTelemetry ? OpenTelemetryCollection.start() : null) {
            results = BenchmarkRun.execute(environment, plan);
            if (metrics != null) {
                System.err.println(
                        "OpenTelemetry: " + metrics.collections() + " collections; the last:\n" + metrics.lastExport());
            }
        }
        MarkdownReport report = new MarkdownReport(results.description(), results.rows());
        out.println(report.table());
        out.println(report.notes());
        results.listingReport().ifPresent(listing -> out.println(listing.section()));
        results.json().write(json);
        System.err.println("JSON: " + json.toAbsolutePath());
        if (reportDirectory != null) {
            Path page = BenchmarksPage.write(
                    reportDirectory, results.description(), results.rows(), results.listingReport());
            System.err.println("Report: " + page.toAbsolutePath());
        }
        return results.anyFailed() ? 1 : 0;
    }

    private int resilience(List<ReaderUnderTest> selected) throws Exception {
        ResilienceRun.Plan plan = new ResilienceRun.Plan(
                selected,
                DataSet.benchmark(scale),
                Scenario.select(scenarios),
                Optional.ofNullable(workloads),
                new RateLimit(rateLimit, rateLimitBurst),
                scale,
                warmups,
                runs,
                Launcher.commandLine(Bench.class, arguments));
        ResilienceRun.Results results;
        try (BenchEnvironment environment = startEnvironment()) {
            results = ResilienceRun.execute(environment, plan);
        }
        Map<Scenario, String> sections = new EnumMap<>(Scenario.class);
        results.reports().forEach((scenario, report) -> sections.put(scenario, report.section()));
        sections.values().forEach(out::println);
        results.json().write(json);
        System.err.println("JSON: " + json.toAbsolutePath());
        if (reportDirectory != null) {
            Path page = ResiliencePage.update(reportDirectory, sections);
            System.err.println("Report: " + page.toAbsolutePath());
        }
        return results.anyFailed() ? 1 : 0;
    }

    private BenchEnvironment startEnvironment() throws Exception {
        Path minioData = dataDirectory != null ? dataDirectory : DEFAULT_MINIO_DATA;
        BenchEnvironment environment = where.start(Optional.of(minioData), BUCKET);
        System.err.println("Server: " + environment.describeServer());
        System.err.println("Network: " + environment.describeNetwork());
        return environment;
    }

    /** For picocli's help: the reader ids (the demo's too). */
    public static final class ReaderIds implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return ReaderCatalog.ids().iterator();
        }
    }

    /** For picocli's help: the resilience scenarios. */
    static final class ScenarioIds implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Scenario.ids().iterator();
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
