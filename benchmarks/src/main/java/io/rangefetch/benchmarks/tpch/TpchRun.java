package io.rangefetch.benchmarks.tpch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.readers.S3Target;
import io.rangefetch.benchmarks.run.Traffic;
import io.rangefetch.benchmarks.run.TrafficCounter;
import io.rangefetch.it.spark.SparkChild;
import io.rangefetch.testing.proxy.ProxiedRequest;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Runs the TPC-H queries in Spark through each read path, cold and warm, and checks every result against DuckDB's.
 *
 * <p>One Spark JVM per read path ({@link SparkChild}), so no path inherits another's JIT, caches or threads. A pass
 * runs every query once; only the last pass is reported (the ones before warm up the JVM, so a second mode in the
 * same JVM runs one pass). Cold: a fresh file system
 * or FileIO for every query. Warm: one for the whole pass. The proxy's ledger is reset right before a query is sent
 * and read right after its answer, so each query's GETs, HEADs and bytes are its own, its tables' loading included.
 */
final class TpchRun {

    /** What to run. */
    record Plan(
            List<ReadPath> paths,
            List<String> modes,
            List<String> queries,
            int passes,
            IcebergCatalogKind icebergCatalog,
            String sparkClassPath,
            String sparkHeap,
            Map<String, String> sparkSettings,
            Path workDirectory,
            boolean requestLogs,
            boolean recordings) {
        Plan {
            requireNonNull(icebergCatalog, "icebergCatalog is null");
            paths = List.copyOf(paths);
            modes = List.copyOf(modes);
            queries = List.copyOf(queries);
            sparkSettings = Map.copyOf(sparkSettings);
            requireNonNull(sparkClassPath, "sparkClassPath is null");
            requireNonNull(workDirectory, "workDirectory is null");
            if (passes < 1) {
                throw new IllegalArgumentException("--passes must be at least 1, not " + passes);
            }
        }
    }

    private static final String ICEBERG_MARKER = "_rangefetch_prepared";

    private final BenchEnvironment environment;
    private final TpchData data;
    private final Plan plan;

    TpchRun(BenchEnvironment environment, TpchData data, Plan plan) {
        this.environment = requireNonNull(environment, "environment is null");
        this.data = requireNonNull(data, "data is null");
        this.plan = requireNonNull(plan, "plan is null");
    }

    List<QueryResult> execute() throws IOException {
        List<QueryResult> results = new ArrayList<>();
        for (ReadPath path : plan.paths()) {
            Path log = plan.workDirectory().resolve(path.id + ".log");
            Path answers = plan.workDirectory().resolve("results").resolve(path.id);
            Files.createDirectories(answers);
            System.err.println("== " + path.description + " (Spark log: " + log + ")");
            try (SparkChild spark = SparkChild.start(
                    "io.rangefetch.tpch.SparkQueryServer",
                    plan.sparkClassPath(),
                    options(path, answers),
                    plan.sparkHeap(),
                    recording(path),
                    log)) {
                if (path.iceberg()) {
                    prepareIceberg(spark, path);
                }
                boolean jitWarm = false;
                for (String mode : plan.modes()) {
                    // the passes before the last warm the JVM up; a later mode finds it warm already
                    int passes = jitWarm ? 1 : plan.passes();
                    for (int pass = 1; pass <= passes; pass++) {
                        results.addAll(pass(spark, path, mode, answers, pass == passes));
                    }
                    jitWarm = true;
                }
            }
        }
        return results;
    }

    /** The Spark JVM's Flight Recorder options, when --recordings asks: its file is written as the JVM exits. */
    private List<String> recording(ReadPath path) throws IOException {
        if (!plan.recordings()) {
            return List.of();
        }
        Path recordings = plan.workDirectory().resolve("recordings");
        Files.createDirectories(recordings);
        System.err.println("   recording to " + recordings.resolve(path.id + ".jfr"));
        return List.of("-XX:StartFlightRecording:filename=" + recordings.resolve(path.id + ".jfr")
                + ",settings=profile,dumponexit=true");
    }

    private List<QueryResult> pass(SparkChild spark, ReadPath path, String mode, Path answers, boolean measured)
            throws IOException {
        List<QueryResult> results = new ArrayList<>();
        TrafficCounter traffic = environment.traffic();
        spark.expectCall("RESET", "OK");
        for (int i = 0; i < plan.queries().size(); i++) {
            String query = plan.queries().get(i);
            if (mode.equals("cold") && i > 0) {
                spark.expectCall("RESET", "OK");
            }
            traffic.reset();
            String answer = spark.call("RUN " + query);
            Traffic counted = traffic.read();
            List<ProxiedRequest> requests = plan.requestLogs() ? environment.requestLog() : List.of();
            QueryResult result = result(path, mode, query, answer, counted, answers);
            System.err.printf(
                    "%s %-5s %s %s %7.2f s %6d GETs %5d HEADs %8.1f MB%s%n",
                    path.id,
                    mode,
                    query,
                    measured ? "" : "(warm-up)",
                    result.seconds(),
                    result.gets(),
                    result.heads(),
                    result.megabytes(),
                    result.error().map(e -> "  WRONG: " + e).orElse(""));
            if (measured) {
                results.add(result);
                if (plan.requestLogs()) {
                    writeRequestLog(path, mode, query, requests);
                }
            }
        }
        return results;
    }

    private QueryResult result(ReadPath path, String mode, String query, String answer, Traffic traffic, Path answers)
            throws IOException {
        String[] words = answer.split(" ", 4);
        if (words[0].equals("DONE") && words.length == 4 && words[1].equals(query)) {
            Optional<String> difference =
                    ResultCheck.difference(data.expected().resolve(query + ".tsv"), answers.resolve(query + ".tsv"));
            return new QueryResult(
                    path.id,
                    mode,
                    query,
                    Long.parseLong(words[2]),
                    Long.parseLong(words[3]),
                    traffic.gets(),
                    traffic.heads(),
                    traffic.bodyBytes(),
                    traffic.lists(),
                    difference.map(d -> "differs from DuckDB: " + d));
        }
        return new QueryResult(
                path.id,
                mode,
                query,
                0,
                0,
                traffic.gets(),
                traffic.heads(),
                traffic.bodyBytes(),
                traffic.lists(),
                Optional.of(answer));
    }

    private void writeRequestLog(ReadPath path, String mode, String query, List<ProxiedRequest> requests)
            throws IOException {
        Path file = plan.workDirectory().resolve("requests").resolve(path.id + "-" + mode + "-" + query + ".tsv");
        Files.createDirectories(file.getParent());
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            out.println("method\ttarget\trange\tstatus\tbytes");
            for (ProxiedRequest request : requests) {
                out.println(request.method() + "\t" + request.target() + "\t" + request.rangeHeader() + "\t"
                        + request.status() + "\t" + request.bodyBytes());
            }
        }
    }

    /**
     * Writes the Iceberg tables once per warehouse. A JDBC catalog's table list lives in a file beside the data; the
     * tables count as written only when both the warehouse's marker and that file are there, and are written again
     * (into a new catalog file) otherwise.
     */
    private void prepareIceberg(SparkChild spark, ReadPath path) throws IOException {
        IcebergCatalogKind catalog = plan.icebergCatalog();
        boolean local = path == ReadPath.ICEBERG_LOCAL_DISK;
        Path database = data.icebergCatalogDatabase(catalog, local);
        boolean catalogKept = catalog != IcebergCatalogKind.JDBC || Files.exists(database);
        if (local) {
            Path warehouse = data.localIceberg(catalog);
            Path marker = warehouse.resolve(ICEBERG_MARKER);
            if (!Files.exists(marker) || !catalogKept) {
                System.err.println("Writing the Iceberg tables (once) under " + warehouse);
                Files.createDirectories(warehouse);
                Files.deleteIfExists(database);
                spark.expectCall("PREPARE_ICEBERG", "OK");
                Files.writeString(marker, "prepared");
            }
            return;
        }
        String marker = data.icebergPrefix(catalog) + "/" + ICEBERG_MARKER;
        try (S3Client client = environment.directClient()) {
            if (catalogKept) {
                try {
                    client.headObject(b -> b.bucket(environment.bucket()).key(marker));
                    return;
                } catch (NoSuchKeyException e) {
                    // not written yet
                }
            }
            System.err.println("Writing the Iceberg tables (once) under " + data.icebergPrefix(catalog));
            Files.deleteIfExists(database);
            spark.expectCall("PREPARE_ICEBERG", "OK");
            client.putObject(b -> b.bucket(environment.bucket()).key(marker), RequestBody.fromString("prepared"));
        }
    }

    private Map<String, String> options(ReadPath path, Path answers) {
        S3Target target = environment.target();
        Map<String, String> options = new LinkedHashMap<>();
        options.put("path", path.id);
        options.put("endpoint", target.endpoint().toString());
        options.put("region", target.region());
        options.put("access-key", target.accessKey());
        options.put("secret-key", target.secretKey());
        options.put("bucket", environment.bucket());
        options.put("parquet-prefix", data.parquetPrefix());
        IcebergCatalogKind catalog = plan.icebergCatalog();
        options.put("iceberg-catalog", catalog.id);
        options.put(
                "iceberg-catalog-db",
                data.icebergCatalogDatabase(catalog, path == ReadPath.ICEBERG_LOCAL_DISK)
                        .toAbsolutePath()
                        .toString());
        options.put("iceberg-prefix", data.icebergPrefix(catalog));
        options.put("local-data", data.files().toAbsolutePath().toString());
        options.put("local-iceberg", data.localIceberg(catalog).toAbsolutePath().toString());
        options.put("results", answers.toString());
        plan.sparkSettings().forEach((key, value) -> options.put("conf." + key, value));
        return options;
    }
}
