package io.rangefetch.sparkcompat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.util.VersionInfo;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * One Spark session in local mode, every setting from a spark-defaults file, that writes a partitioned Parquet data
 * set through {@code s3a://} and queries it when told to: the Spark side of {@code SparkS3AFileSystemIT}
 * (integration-tests), started as a child process on this build's class path for one Spark line plus Rangefetch's
 * bundle jar. Whether {@code s3a://} is S3A's own file system or Rangefetch's is the settings' business: the same
 * program runs both. The test owns the S3 server.
 *
 * <p><b>Protocol.</b> Options {@code --path NAME} (for the logs), {@code --conf-file FILE} (spark-defaults lines, read
 * as Spark reads its own: Java properties with whitespace between key and value) and {@code --bucket}. Then one
 * command a line on standard input, one answer a line on standard output prefixed {@code @@ } (Spark's own output goes
 * to standard error):
 * <ul>
 *   <li>{@code VERSION}: answers {@code VERSION <Spark's version> <Hadoop's version>}.
 *   <li>{@code WRITE}: writes {@code sales} (Parquet, partitioned by region, several files of several row groups each)
 *       and {@code stores} under {@code s3a://bucket/compat/}. Answers {@code OK <sales rows> <Parquet files>}.
 *   <li>{@code QUERY name}: runs a query of {@link #QUERIES} and answers {@code RESULT <rows> <sha256 of the sorted
 *       rows> <tasks> <bytes the tasks read through s3a> <bytes Rangefetch's streams served the tasks> <GETs
 *       Rangefetch's streams sent for the tasks>} ({@link TaskReads}, which {@code spark.plugins} must name).
 *   <li>{@code STREAM}: opens the first {@code sales} file through the session's {@code s3a} file system, once with
 *       {@code open} and once with {@code openFile} (as Parquet's reader opens), reads its footer's magic through both
 *       and answers {@code STREAM <file system class> <open's stream class> <openFile's stream class>}: the classes
 *       {@link FSDataInputStream#getWrappedStream()} answers.
 *   <li>{@code QUIT}.
 * </ul>
 * A failure answers {@code FAILED <message>}.
 */
public final class S3ACompatServer implements AutoCloseable {
    private static final String ANSWER = "@@ ";
    private static final long SALES = 120_000;
    private static final int STORES = 500;
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    /** The queries: a filter, a projection of the widest column, an aggregate, a join and a full-row checksum. */
    static final Map<String, String> QUERIES;

    static {
        Map<String, String> queries = new LinkedHashMap<>();
        queries.put("filter", "SELECT id, store, qty, price FROM sales WHERE region = 'east' AND price >= 990");
        queries.put("projection", "SELECT id, note FROM sales WHERE store = 17");
        queries.put(
                "aggregate",
                "SELECT region, count(*), sum(qty), sum(price), min(note), max(note) FROM sales GROUP BY region");
        queries.put(
                "join",
                "SELECT st.city, count(*), sum(s.qty * s.price) FROM sales s JOIN stores st ON s.store = st.id"
                        + " WHERE NOT s.returned GROUP BY st.city");
        // hash is a 32-bit int: the sum of 120,000 of them fits a long, so ANSI mode (Spark 4's default) never trips
        queries.put("checksum", "SELECT count(*), sum(hash(id, region, store, qty, price, note, returned)) FROM sales");
        QUERIES = Collections.unmodifiableMap(queries);
    }

    private static final StructType SALES_SCHEMA = new StructType()
            .add("id", DataTypes.LongType)
            .add("store", DataTypes.IntegerType)
            .add("qty", DataTypes.IntegerType)
            .add("price", DataTypes.createDecimalType(10, 2))
            .add("note", DataTypes.StringType)
            .add("returned", DataTypes.BooleanType)
            .add("region", DataTypes.StringType);
    private static final StructType STORES_SCHEMA = new StructType()
            .add("id", DataTypes.IntegerType)
            .add("city", DataTypes.StringType)
            .add("opened", DataTypes.IntegerType);

    private final Map<String, String> options;
    private final PrintStream answers;
    private final SparkSession spark;
    private boolean viewsDefined;

    private S3ACompatServer(Map<String, String> options, PrintStream answers) throws IOException {
        this.options = options;
        this.answers = answers;
        SparkSession.Builder builder = SparkSession.builder().appName("rangefetch-compat-" + option("path"));
        Properties settings = new Properties();
        try (Reader reader =
                Files.newBufferedReader(java.nio.file.Path.of(option("conf-file")), StandardCharsets.UTF_8)) {
            settings.load(reader);
        }
        for (String key : settings.stringPropertyNames()) {
            builder.config(key, settings.getProperty(key).strip());
        }
        this.spark = builder.getOrCreate();
    }

    public static void main(String[] args) throws Exception {
        // Spark and its libraries print to standard output too: answers keep the real one, the rest goes to stderr
        PrintStream answers = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        try (S3ACompatServer server = new S3ACompatServer(options(args), answers)) {
            server.serve(System.in);
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    private void serve(InputStream commands) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(commands, StandardCharsets.UTF_8));
        answer("READY");
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            String[] words = line.strip().split("\\s+");
            try {
                switch (words[0]) {
                    case "VERSION" -> answer("VERSION " + spark.version() + " " + VersionInfo.getVersion());
                    case "WRITE" -> answer(write());
                    case "QUERY" -> answer(query(words[1]));
                    case "STREAM" -> answer(stream());
                    case "QUIT" -> {
                        return;
                    }
                    default -> answer("FAILED unknown command " + words[0]);
                }
            } catch (Exception | Error e) {
                e.printStackTrace(System.err);
                String message = (e.getClass().getSimpleName() + ": " + e.getMessage()).replaceAll("\\s+", " ");
                answer("FAILED " + message.substring(0, Math.min(message.length(), 500)));
            }
        }
    }

    private String location(String table) {
        return "s3a://" + option("bucket") + "/compat/" + table + "/";
    }

    private FileSystem fileSystem() throws IOException {
        // the cached instance, the one Spark's tasks read through
        return FileSystem.get(
                URI.create("s3a://" + option("bucket") + "/"),
                spark.sparkContext().hadoopConfiguration());
    }

    private String write() throws IOException {
        Dataset<Row> sales = spark.range(0, SALES, 1, 4)
                .selectExpr(
                        "id",
                        "cast((id * 7919) % " + STORES + " AS INT) AS store",
                        "cast(1 + (id * 31) % 20 AS INT) AS qty",
                        "cast(((id * 104729) % 100000) / 100.0 AS DECIMAL(10, 2)) AS price",
                        "substring(sha2(cast(id AS STRING), 256), 1, 32) AS note",
                        "id % 11 = 0 AS returned",
                        "element_at(array('north', 'south', 'east', 'west'), cast(id % 4 AS INT) + 1) AS region");
        Dataset<Row> stores = spark.range(0, STORES, 1, 1)
                .selectExpr(
                        "cast(id AS INT) AS id",
                        "concat('city-', cast(id % 13 AS STRING)) AS city",
                        "cast(1990 + id % 30 AS INT) AS opened");
        // row groups of 128 KiB: a few in each file, so a filter or a projection skips some of a file
        sales.write()
                .mode("overwrite")
                .option("parquet.block.size", 128 * 1024)
                .partitionBy("region")
                .parquet(location("sales"));
        stores.write().mode("overwrite").parquet(location("stores"));
        return "OK " + SALES + " " + salesFiles().size();
    }

    private List<LocatedFileStatus> salesFiles() throws IOException {
        List<LocatedFileStatus> files = new ArrayList<>();
        RemoteIterator<LocatedFileStatus> listing = fileSystem().listFiles(new Path(location("sales")), true);
        while (listing.hasNext()) {
            LocatedFileStatus file = listing.next();
            if (file.getPath().getName().endsWith(".parquet")) {
                files.add(file);
            }
        }
        files.sort((a, b) -> a.getPath().toString().compareTo(b.getPath().toString()));
        return files;
    }

    private String query(String name) {
        String text = Objects.requireNonNull(QUERIES.get(name), () -> "no query " + name);
        if (!viewsDefined) {
            // the schemas given, so no footer is read on the driver to infer them: every read is a task's
            spark.read().schema(SALES_SCHEMA).parquet(location("sales")).createOrReplaceTempView("sales");
            spark.read().schema(STORES_SCHEMA).parquet(location("stores")).createOrReplaceTempView("stores");
            viewsDefined = true;
        }
        TaskReads.reset();
        List<Row> rows = spark.sql(text).collectAsList();
        // every task of the query reported itself before the answer came back (TaskReads says why)
        TaskReads.Totals reads = TaskReads.totals();
        List<String> lines = new ArrayList<>(rows.size());
        for (Row row : rows) {
            lines.add(canonical(row));
        }
        Collections.sort(lines);
        return "RESULT " + rows.size() + " " + sha256(String.join("\n", lines)) + " " + reads.tasks() + " "
                + reads.s3aBytesRead() + " " + reads.rangefetchBytesServed() + " " + reads.rangefetchGets();
    }

    private String stream() throws IOException, InterruptedException, ExecutionException {
        FileSystem fs = fileSystem();
        List<LocatedFileStatus> files = salesFiles();
        if (files.isEmpty()) {
            throw new IOException("no Parquet file under " + location("sales") + ": WRITE first");
        }
        FileStatus file = files.get(0);
        String opened;
        try (FSDataInputStream in = fs.open(file.getPath())) {
            opened = streamClass(in, file);
        }
        String built;
        try (FSDataInputStream in =
                fs.openFile(file.getPath()).withFileStatus(file).build().get()) {
            built = streamClass(in, file);
        }
        return "STREAM " + fs.getClass().getName() + " " + opened + " " + built;
    }

    /** The wrapped stream's class, once the stream has read the file's last four bytes as Parquet's magic. */
    private static String streamClass(FSDataInputStream in, FileStatus file) throws IOException {
        byte[] tail = new byte[PARQUET_MAGIC.length];
        in.readFully(file.getLen() - tail.length, tail);
        if (!Arrays.equals(tail, PARQUET_MAGIC)) {
            throw new IOException(file.getPath() + " does not end in Parquet's magic through "
                    + in.getWrappedStream().getClass().getName());
        }
        return in.getWrappedStream().getClass().getName();
    }

    /** A row as text: fields joined by tabs, NULL as {@code \N}, decimals in plain notation. */
    private static String canonical(Row row) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < row.length(); i++) {
            if (i > 0) {
                line.append('\t');
            }
            Object value = row.get(i);
            if (value == null) {
                line.append("\\N");
            } else if (value instanceof BigDecimal decimal) {
                line.append(decimal.toPlainString());
            } else {
                line.append(value);
            }
        }
        return line.toString();
    }

    private static String sha256(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private void answer(String text) {
        answers.println(ANSWER + text);
    }

    private String option(String name) {
        return Objects.requireNonNull(options.get(name), () -> "missing option --" + name);
    }

    @Override
    public void close() throws IOException {
        try {
            FileSystem.closeAll();
        } finally {
            spark.stop();
        }
    }
}
