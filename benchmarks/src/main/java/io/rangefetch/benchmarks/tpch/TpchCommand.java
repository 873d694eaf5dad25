package io.rangefetch.benchmarks.tpch;

import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.it.spark.SparkChild;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;

/** What the {@code tpch} command does, apart from its options: checks them, makes the data, runs, reports. */
public final class TpchCommand {
    private final List<ReadPath> paths;
    private final List<String> modes;
    private final List<String> queries;
    private final int passes;
    private final IcebergCatalogKind icebergCatalog;
    private final String sparkHeap;
    private final Map<String, String> sparkSettings;
    private final boolean requestLogs;
    private final boolean recordings;
    private final Path work;
    private final Path repository;
    private final TpchData data;

    public TpchCommand(
            List<String> paths,
            List<String> modes,
            List<String> queries,
            int passes,
            String icebergCatalog,
            String scaleFactor,
            int parts,
            String sparkHeap,
            Map<String, String> sparkSettings,
            boolean requestLogs,
            boolean recordings,
            Path cache,
            Path work,
            Path repository) {
        this.paths = paths.stream().map(ReadPath::parse).toList();
        for (String mode : modes) {
            if (!mode.equals("cold") && !mode.equals("warm")) {
                throw new IllegalArgumentException("--modes takes cold and warm, not '" + mode + "'");
            }
        }
        this.modes = List.copyOf(modes);
        this.queries = queries.isEmpty()
                ? TpchQueries.ALL
                : queries.stream().map(TpchQueries::parse).toList();
        this.passes = passes;
        this.icebergCatalog = IcebergCatalogKind.parse(icebergCatalog);
        this.sparkHeap = sparkHeap;
        this.sparkSettings = new LinkedHashMap<>(sparkSettings);
        this.requestLogs = requestLogs;
        this.recordings = recordings;
        this.work = work.toAbsolutePath();
        this.repository = repository.toAbsolutePath().normalize();
        if (parts < 1) {
            throw new IllegalArgumentException("--parts must be at least 1, not " + parts);
        }
        this.data = new TpchData(cache.toAbsolutePath(), this.repository, scaleFactor, parts);
    }

    /** Fails with a usage error when the Spark build or the bundle jar is missing. */
    public void validate() {
        try {
            SparkChild.classPath(repository);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage() + " (./tpch builds both)", e);
        }
    }

    public void prepareData() throws IOException, InterruptedException {
        data.prepare();
    }

    public Outcome run(BenchEnvironment environment) throws IOException {
        try (S3Client client = environment.directClient()) {
            data.upload(client, environment.bucket());
        }
        Files.createDirectories(work);
        String classPath = SparkChild.classPath(repository);
        TpchRun.Plan plan = new TpchRun.Plan(
                paths,
                modes,
                queries,
                passes,
                icebergCatalog,
                classPath,
                sparkHeap,
                sparkSettings,
                work,
                requestLogs,
                recordings);
        List<QueryResult> rows = new TpchRun(environment, data, plan).execute();
        return new Outcome(rows);
    }

    /** Every query's figures, and the report made of them. */
    public record Outcome(List<QueryResult> rows) {
        public String markdown() {
            return new TpchReport(rows).markdown();
        }

        /** Every query's figures as JSON objects' fields. */
        public List<Map<String, Object>> json() {
            return rows.stream().map(QueryResult::fields).toList();
        }

        public boolean allCorrect() {
            return new TpchReport(rows).allCorrect();
        }
    }
}
