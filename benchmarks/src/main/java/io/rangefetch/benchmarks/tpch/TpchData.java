package io.rangefetch.benchmarks.tpch;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * The TPC-H data and its expected answers, made once and kept under a cache directory: a Python virtual environment
 * with {@code tpchgen-cli} and {@code duckdb} from PyPI (pinned), the Parquet files tpchgen-cli writes
 * ({@code data/<table>/<table>.<n>.parquet}, several files per table), and DuckDB's answer to every query over those
 * files ({@code expected/qNN.tsv}, by {@code spark-tpch/bin/tpch_expected.py}). Uploaded once to the server under
 * {@code <prefix>/<table>/}; a marker object written last says the upload is whole.
 */
final class TpchData {
    static final String TPCHGEN = "tpchgen-cli==4.0.0";
    static final String DUCKDB = "duckdb==2.0.1";
    private static final String UPLOADED_MARKER = "_rangefetch_uploaded";

    private final Path directory;
    private final Path repository;
    private final String scale;
    private final int parts;

    /**
     * @param cache where the environment and every scale's data are kept
     * @param repository the checkout, for the query texts and the expected-answer script
     */
    TpchData(Path cache, Path repository, String scale, int parts) {
        this.directory = requireNonNull(cache, "cache is null").resolve("sf" + scale + "-" + parts + "parts");
        this.repository = requireNonNull(repository, "repository is null");
        this.scale = requireNonNull(scale, "scale is null");
        this.parts = parts;
    }

    Path files() {
        return directory.resolve("data");
    }

    /** Where the Iceberg tables are written once for the local-disk reference path. */
    Path localIceberg(IcebergCatalogKind catalog) {
        return directory.resolve(catalog.warehouseName + "-local");
    }

    /** The SQLite file of a JDBC catalog's table list, for the warehouse on the server or on local disk. */
    Path icebergCatalogDatabase(IcebergCatalogKind catalog, boolean local) {
        return directory.resolve(catalog.warehouseName + (local ? "-local" : "") + "-catalog.sqlite");
    }

    Path expected() {
        return directory.resolve("expected");
    }

    /** The key prefix of the Parquet files on the server. */
    String parquetPrefix() {
        return "tpch/sf" + scale + "-" + parts + "parts/parquet";
    }

    /** The Iceberg warehouse's key prefix on the server. */
    String icebergPrefix(IcebergCatalogKind catalog) {
        return "tpch/sf" + scale + "-" + parts + "parts/" + catalog.warehouseName;
    }

    static Path queries(Path repository) {
        return repository.resolve("spark-tpch/src/main/resources/io/rangefetch/tpch/queries");
    }

    /** Makes whatever is missing: the environment, the files, the expected answers. */
    void prepare() throws IOException, InterruptedException {
        Path venv = directory.getParent().resolve("venv");
        Path python = venv.resolve("bin/python");
        if (!Files.isExecutable(venv.resolve("bin/tpchgen-cli"))) {
            System.err.println("Installing " + TPCHGEN + " and " + DUCKDB + " into " + venv);
            run(List.of("python3", "-m", "venv", venv.toString()));
            run(List.of(python.toString(), "-m", "pip", "install", "-q", TPCHGEN, DUCKDB));
        }
        Path done = directory.resolve("data.done");
        if (!Files.exists(done)) {
            System.err.println("Generating TPC-H at scale factor " + scale + " in " + parts + " parts: " + files());
            run(List.of(
                    venv.resolve("bin/tpchgen-cli").toString(),
                    "parquet",
                    "-s",
                    scale,
                    "--parts",
                    Integer.toString(parts),
                    "--output-dir",
                    files().toString(),
                    "--overwrite"));
            Files.writeString(done, TPCHGEN + "\n");
        }
        // the answers depend on the query texts too: made again whenever one is newer
        Path answers = expected();
        if (!Files.exists(answers.resolve("q22.tsv")) || queriesNewerThan(answers.resolve("q22.tsv"))) {
            System.err.println("Computing the expected answers with DuckDB: " + answers);
            run(List.of(
                    python.toString(),
                    repository.resolve("spark-tpch/bin/tpch_expected.py").toString(),
                    "--data",
                    files().toString(),
                    "--queries",
                    queries(repository).toString(),
                    "--out",
                    answers.toString()));
        }
    }

    private boolean queriesNewerThan(Path file) throws IOException {
        long made = Files.getLastModifiedTime(file).toMillis();
        try (Stream<Path> texts = Files.list(queries(repository))) {
            return texts.anyMatch(text -> {
                try {
                    return Files.getLastModifiedTime(text).toMillis() > made;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    /** Uploads the Parquet files unless the server has them already. */
    void upload(S3Client client, String bucket) throws IOException {
        String marker = parquetPrefix() + "/" + UPLOADED_MARKER;
        try {
            client.headObject(b -> b.bucket(bucket).key(marker));
            return;
        } catch (NoSuchKeyException e) {
            // not uploaded yet (or not whole): upload
        }
        List<Path> parquet = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(files())) {
            walk.filter(file -> file.getFileName().toString().endsWith(".parquet"))
                    .sorted()
                    .forEach(parquet::add);
        }
        System.err.println("Uploading " + parquet.size() + " Parquet files to " + bucket + "/" + parquetPrefix());
        for (Path file : parquet) {
            String key = parquetPrefix() + "/" + table(file) + "/" + file.getFileName();
            client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromFile(file));
        }
        client.putObject(
                b -> b.bucket(bucket).key(marker),
                RequestBody.fromString(TPCHGEN + " -s " + scale + " --parts " + parts, StandardCharsets.UTF_8));
    }

    /** tpchgen-cli writes a table's parts into a folder named after it, a table of one part as one file. */
    private static String table(Path file) {
        String folder = file.getParent().getFileName().toString();
        if (TpchQueries.TABLES.contains(folder)) {
            return folder;
        }
        String name = file.getFileName().toString();
        return name.substring(0, name.indexOf('.'));
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command)
                .inheritIO()
                .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .start();
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IOException(String.join(" ", command) + " failed with exit code " + exit);
        }
    }
}
