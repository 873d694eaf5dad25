package io.rangefetch.tpch;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.types.StructType;

/**
 * One Spark session that runs TPC-H queries through one read path when told to: the Spark side of the TPC-H
 * benchmark, started as a child process by the coordinator (benchmarks module), which owns the S3 server and the
 * proxy that counts requests.
 *
 * <p><b>Protocol.</b> Options on the command line ({@code --name value}); then one command per line on standard
 * input, one answer per line on standard output prefixed {@code @@ } (Spark's own output goes to standard error):
 * <ul>
 *   <li>{@code PREPARE_ICEBERG}: writes every table as an Iceberg table once (through S3A classic), answers
 *       {@code @@ OK};
 *   <li>{@code RESET}: a fresh read path (S3A: every cached file system closed; Iceberg: a new catalog, so a new
 *       FileIO, the old one closed), answers {@code @@ OK};
 *   <li>{@code RUN qNN}: runs the query, writes its rows to {@code --results DIR/qNN.tsv} in the canonical form of
 *       {@code spark-tpch/bin/tpch_expected.py}, answers {@code @@ DONE qNN <nanoseconds> <rows>} or
 *       {@code @@ FAILED qNN <message>};
 *   <li>{@code QUIT}.
 * </ul>
 * The coordinator resets the proxy's ledger after an answer and reads it at the next, so a RESET's listing and
 * table loading are not counted against the query after it, and a query's are.
 *
 * <p><b>Read paths.</b> {@code s3a-classic}, {@code s3a-analytics}, {@code s3a-rangefetch} read the Parquet files
 * as temporary views over {@code s3a://} with S3A's stream of that type ({@code local-disk}: the same files on
 * local disk, {@code --local-data}, Spark's own time); {@code iceberg}, {@code iceberg-aal},
 * {@code iceberg-rangefetch} read the Iceberg tables through a catalog whose {@code io-impl} is
 * {@code S3FileIO} (with the analytics accelerator for {@code iceberg-aal}) or {@code RangefetchS3FileIO};
 * {@code iceberg-local-disk} reads the same tables written once to a local warehouse ({@code --local-iceberg})
 * through {@code HadoopFileIO}: Iceberg's own time.
 *
 * <p><b>The Iceberg catalog</b> ({@code --iceberg-catalog}). {@code jdbc} (the default): a JDBC catalog on a SQLite
 * file ({@code --iceberg-catalog-db}), which keeps only each table's metadata location and reads every metadata file
 * through the FileIO under test, as REST, Glue and JDBC catalogs do. {@code hadoop}: a Hadoop catalog on the
 * warehouse, which finds a table's current version through S3A on the driver (version hint, listing, existence
 * checks, one after another), the same requests whatever the FileIO. Either way the catalog is always named
 * {@value #CATALOG} (a JDBC catalog keys its tables by its name), and a fresh one is had by closing it and resetting
 * Spark's catalog manager.
 */
public final class SparkQueryServer implements Closeable {
    static final List<String> TABLES =
            List.of("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem");
    private static final String ANSWER = "@@ ";
    private static final String ICEBERG_NAMESPACE = "tpch";
    private static final String CATALOG = "tpch";

    private final Map<String, String> options;
    private final String path;
    private final Path results;
    private final PrintStream answers;
    private final SparkSession spark;
    private final Map<String, StructType> schemas = new HashMap<>();
    private boolean catalogOpen;

    private SparkQueryServer(Map<String, String> options, PrintStream answers) {
        this.options = options;
        this.path = option("path");
        this.results = Path.of(option("results"));
        this.answers = answers;
        this.spark = session();
    }

    public static void main(String[] args) throws Exception {
        // Spark and its libraries print to standard output too: answers keep the real one, everything else goes to
        // standard error
        PrintStream answers = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        try (SparkQueryServer server = new SparkQueryServer(CommandLine.options(args), answers)) {
            server.serve(System.in);
        }
    }

    private void serve(InputStream commands) throws IOException {
        Files.createDirectories(results);
        BufferedReader reader = new BufferedReader(new InputStreamReader(commands, StandardCharsets.UTF_8));
        answer("READY");
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            String[] words = line.trim().split("\\s+");
            switch (words[0]) {
                case "PREPARE_ICEBERG" -> {
                    prepareIceberg();
                    answer("OK");
                }
                case "RESET" -> {
                    reset();
                    answer("OK");
                }
                case "RUN" -> run(words[1]);
                case "QUIT" -> {
                    return;
                }
                default -> answer("FAILED " + words[0] + " unknown command");
            }
        }
    }

    private SparkSession session() {
        SparkSession.Builder builder = SparkSession.builder()
                .appName("rangefetch-tpch-" + path)
                .master("local[" + options.getOrDefault("cores", "2") + "]")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", options.getOrDefault("shuffle-partitions", "8"))
                .config("spark.sql.adaptive.enabled", "true")
                .config("spark.hadoop.fs.s3a.endpoint", option("endpoint"))
                .config("spark.hadoop.fs.s3a.endpoint.region", options.getOrDefault("region", "us-east-1"))
                .config("spark.hadoop.fs.s3a.path.style.access", "true")
                .config("spark.hadoop.fs.s3a.connection.ssl.enabled", "false")
                .config("spark.hadoop.fs.s3a.bucket.probe", "0")
                .config("spark.hadoop.fs.s3a.access.key", option("access-key"))
                .config("spark.hadoop.fs.s3a.secret.key", option("secret-key"))
                .config(
                        "spark.hadoop.fs.s3a.aws.credentials.provider",
                        "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider")
                .config("spark.hadoop.fs.s3a.input.stream.type", s3aStreamType());
        if (path.equals("s3a-rangefetch")) {
            builder.config(
                    "spark.hadoop.fs.s3a.input.stream.custom.factory", "io.rangefetch.hadoop.RangefetchStreamFactory");
            // a cold query's RESET closes its file system: its Rangefetch factory must close too, not linger warm
            // into the next query (factory.linger); a warm pass keeps one file system, so this changes nothing there
            builder.config("spark.hadoop.fs.s3a.rangefetch.factory.linger", "0s");
        }
        for (Map.Entry<String, String> setting : options.entrySet()) {
            // --conf.spark.x=y passes any other Spark (or spark.hadoop.) setting through
            if (setting.getKey().startsWith("conf.")) {
                builder.config(setting.getKey().substring("conf.".length()), setting.getValue());
            }
        }
        return builder.getOrCreate();
    }

    private String s3aStreamType() {
        return switch (path) {
            case "s3a-analytics" -> "analytics";
            case "s3a-rangefetch" -> "custom";
            // the Iceberg paths use S3A only for the catalog's version hint: its own stream
            default -> "classic";
        };
    }

    private boolean iceberg() {
        return path.startsWith("iceberg");
    }

    private boolean localDisk() {
        return path.equals("local-disk") || path.equals("iceberg-local-disk");
    }

    private String icebergWarehouse() {
        return path.equals("iceberg-local-disk")
                ? Path.of(option("local-iceberg")).toUri().toString()
                : "s3a://" + option("bucket") + "/" + option("iceberg-prefix");
    }

    private String parquetLocation(String table) {
        if (localDisk()) {
            return Path.of(option("local-data"), table).toUri() + "/";
        }
        return "s3a://" + option("bucket") + "/" + option("parquet-prefix") + "/" + table + "/";
    }

    private void prepareIceberg() {
        // tables are written through S3A's classic stream (HadoopFileIO), whatever path is measured afterwards
        icebergCatalog(Map.of("io-impl", "org.apache.iceberg.hadoop.HadoopFileIO"));
        spark.sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + "." + ICEBERG_NAMESPACE);
        // one split per Parquet file, so each table keeps its file count and row order
        spark.conf().set("spark.sql.files.maxPartitionBytes", "16MB");
        try {
            for (String table : TABLES) {
                spark.read().parquet(parquetLocation(table)).createOrReplaceTempView("source_" + table);
                spark.sql("CREATE OR REPLACE TABLE " + CATALOG + "." + ICEBERG_NAMESPACE + "." + table
                        + " USING iceberg TBLPROPERTIES ('format-version'='2',"
                        + " 'write.distribution-mode'='none',"
                        + " 'write.parquet.row-group-size-bytes'='" + options.getOrDefault("row-group-bytes", "7340032")
                        + "',"
                        + " 'write.target-file-size-bytes'='536870912')"
                        + " AS SELECT * FROM source_" + table);
                spark.catalog().dropTempView("source_" + table);
            }
        } finally {
            spark.conf().unset("spark.sql.files.maxPartitionBytes");
            closeCatalog();
        }
    }

    private void reset() throws IOException {
        if (iceberg()) {
            closeCatalog();
            Map<String, String> io = new LinkedHashMap<>();
            io.put(
                    "io-impl",
                    path.equals("iceberg-rangefetch")
                            ? "io.rangefetch.iceberg.RangefetchS3FileIO"
                            : path.equals("iceberg-local-disk")
                                    ? "org.apache.iceberg.hadoop.HadoopFileIO"
                                    : "org.apache.iceberg.aws.s3.S3FileIO");
            io.put("s3.endpoint", option("endpoint"));
            io.put("s3.path-style-access", "true");
            io.put("s3.access-key-id", option("access-key"));
            io.put("s3.secret-access-key", option("secret-key"));
            io.put("client.region", options.getOrDefault("region", "us-east-1"));
            if (path.equals("iceberg-aal")) {
                io.put("s3.analytics-accelerator.enabled", "true");
            }
            if (path.equals("iceberg-rangefetch")) {
                // a RESET's new FileIO starts cold: the closed one's factory must not linger into it
                io.put("rangefetch.factory.linger", "0s");
            }
            icebergCatalog(io);
            spark.sql("USE " + CATALOG + "." + ICEBERG_NAMESPACE);
        } else {
            // S3A caches one file system per bucket and user: closing them all makes the next query open a new one,
            // with a new stream factory (and, for Rangefetch, a new block cache)
            FileSystem.closeAll();
            for (String table : TABLES) {
                StructType schema = schemas.computeIfAbsent(
                        table,
                        name -> spark.read().parquet(parquetLocation(name)).schema());
                spark.read().schema(schema).parquet(parquetLocation(table)).createOrReplaceTempView(table);
            }
        }
    }

    /** Sets the catalog's settings; Spark makes the catalog (and its FileIO) when a statement first names it. */
    private void icebergCatalog(Map<String, String> io) {
        String prefix = "spark.sql.catalog." + CATALOG;
        spark.conf().set(prefix, "org.apache.iceberg.spark.SparkCatalog");
        String kind = options.getOrDefault("iceberg-catalog", "jdbc");
        switch (kind) {
            case "jdbc" -> {
                spark.conf().unset(prefix + ".type");
                spark.conf().set(prefix + ".catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
                spark.conf().set(prefix + ".uri", "jdbc:sqlite:" + option("iceberg-catalog-db"));
            }
            case "hadoop" -> {
                spark.conf().unset(prefix + ".catalog-impl");
                spark.conf().set(prefix + ".type", "hadoop");
            }
            default -> throw new IllegalArgumentException("--iceberg-catalog takes jdbc or hadoop, not " + kind);
        }
        spark.conf().set(prefix + ".warehouse", icebergWarehouse());
        // no table cache: a cold query loads its tables (and opens its files) through its own FileIO
        spark.conf().set(prefix + ".cache-enabled", "false");
        for (String key : List.of(
                "io-impl",
                "s3.endpoint",
                "s3.path-style-access",
                "s3.access-key-id",
                "s3.secret-access-key",
                "client.region",
                "s3.analytics-accelerator.enabled")) {
            spark.conf().unset(prefix + "." + key);
        }
        io.forEach((key, value) -> spark.conf().set(prefix + "." + key, value));
        catalogOpen = true;
    }

    /**
     * Closes the catalog (and so its FileIO) and has Spark forget it, so the next statement that names it makes a
     * new one from the settings of the time.
     */
    private void closeCatalog() {
        if (!catalogOpen) {
            return;
        }
        catalogOpen = false;
        CatalogManager catalogs = spark.sessionState().catalogManager();
        CatalogPlugin plugin = catalogs.catalog(CATALOG);
        if (plugin instanceof org.apache.iceberg.spark.SparkCatalog sparkCatalog
                && sparkCatalog.icebergCatalog() instanceof Closeable closeable) {
            try {
                closeable.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing catalog " + CATALOG, e);
            }
        }
        // forgets every catalog Spark made but the session's own; this server names no other
        catalogs.reset();
    }

    private void run(String query) {
        try {
            String text = queryText(query);
            long start = System.nanoTime();
            Dataset<Row> result = spark.sql(text);
            List<Row> rows = result.collectAsList();
            long elapsed = System.nanoTime() - start;
            List<String> lines = new ArrayList<>(rows.size());
            for (Row row : rows) {
                lines.add(canonical(row));
            }
            Files.write(results.resolve(query + ".tsv"), lines, StandardCharsets.UTF_8);
            answer("DONE " + query + " " + elapsed + " " + rows.size());
        } catch (Exception | Error e) {
            e.printStackTrace(System.err);
            String message = String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
            answer("FAILED " + query + " " + e.getClass().getSimpleName() + ": "
                    + message.substring(0, Math.min(message.length(), 400)));
        }
    }

    static String queryText(String query) throws IOException {
        String resource = "queries/" + query + ".sql";
        try (InputStream in = SparkQueryServer.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no query " + query + " (resource " + resource + ")");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * A row as {@code tpch_expected.py} writes DuckDB's: fields joined by tabs, NULL as {@code \N}, numbers other than
     * integers rounded half-up to two places, dates as {@code YYYY-MM-DD}, strings as they are.
     */
    static String canonical(Row row) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < row.length(); i++) {
            if (i > 0) {
                line.append('\t');
            }
            line.append(canonicalValue(row.get(i)));
        }
        return line.toString();
    }

    static String canonicalValue(Object value) {
        if (value == null) {
            return "\\N";
        }
        if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            return value.toString();
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.setScale(2, RoundingMode.HALF_UP).toPlainString();
        }
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number)) {
                return "NaN";
            }
            if (Double.isInfinite(number)) {
                return number > 0 ? "Infinity" : "-Infinity";
            }
            // the double's exact value, as the DuckDB side rounds it
            return new BigDecimal(number).setScale(2, RoundingMode.HALF_UP).toPlainString();
        }
        // java.sql.Date and java.time.LocalDate both print YYYY-MM-DD
        return value.toString();
    }

    private void answer(String text) {
        answers.println(ANSWER + text);
    }

    private String option(String name) {
        return Objects.requireNonNull(options.get(name), () -> "missing option --" + name);
    }

    @Override
    public void close() throws IOException {
        closeCatalog();
        spark.stop();
        FileSystem.closeAll();
    }
}
