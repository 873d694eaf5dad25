package io.rangefetch.sparkcheck;

import io.rangefetch.tpch.CommandLine;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.service.CompositeService;
import org.apache.hadoop.service.Service;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.spark.SparkCatalog;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * One Spark session, configured from a spark-defaults file, that writes the check data set and runs the check
 * queries through one read path when told to: the Spark side of the Spark integration test ({@code SparkEnginesIT}
 * in the integration-tests module), started as a child process with Spark's class path and Rangefetch's bundle jar,
 * nothing else of Rangefetch's. The test owns the S3 server and the proxy that counts requests.
 *
 * <p><b>Protocol.</b> Options on the command line ({@code --name value}): {@code --path} (a name for the logs),
 * {@code --conf-file} (spark-defaults lines: every setting of the session), {@code --bucket}, {@code --catalog} (the
 * Iceberg catalog's name in those lines). Then one command per line on standard input, one answer per line on
 * standard output prefixed {@code @@ } (Spark's own output goes to standard error):
 * <ul>
 *   <li>{@code WRITE}: writes the data set through the session's S3A and Iceberg settings: a Parquet data set
 *       partitioned by day ({@code s3a://bucket/parquet/events/}) and a customers table beside it, and the same rows
 *       as Iceberg tables (format 2), then deletes every 97th event (merge-on-read: position delete files). Answers
 *       {@code OK <events> <deleted>}.
 *   <li>{@code OPEN s3a|iceberg}: views {@code events} and {@code customers} over the Parquet files through
 *       {@code s3a://} or over the Iceberg tables. Answers {@code OK}.
 *   <li>{@code QUERY name}: runs a check query (see {@link #QUERIES}) and answers {@code RESULT <rows> <sha256 of
 *       the sorted canonical rows> <bytes Spark's tasks counted as input> <bytes Rangefetch handed to readers while
 *       the query ran, its planning excluded> <bytes Rangefetch handed during planning>} (Rangefetch's figures are
 *       -1 on a path without Rangefetch).
 *   <li>{@code THREADS}: answers {@code THREADS <live rangefetch- threads> <factories owning them>}.
 *   <li>{@code COLLECT}: asks for garbage collections until no {@code rangefetch-} thread is left (what was never
 *       closed is given back when collected), for at most 60 s; answers as {@code THREADS} then.
 *   <li>{@code CLOSE}: closes the read path (the Iceberg catalog, so its FileIO; every S3A file system). Answers
 *       {@code OK}.
 *   <li>{@code QUIT}.
 * </ul>
 * Failures answer {@code FAILED <message>}.
 */
public final class SparkCheckServer implements Closeable {
    private static final String ANSWER = "@@ ";
    private static final long EVENTS = 300_000;
    private static final int CUSTOMERS = 5_000;
    private static final Pattern FACTORY_THREAD = Pattern.compile("rangefetch-(fetch|exchange|timer)-(\\d+)-.*");

    /** The check queries: filters, projections, aggregates, a join and a full-row checksum. */
    static final Map<String, String> QUERIES;

    static {
        Map<String, String> queries = new LinkedHashMap<>();
        queries.put("filter", "SELECT id, customer, amount FROM events WHERE day = 'd3' AND amount > 990");
        queries.put("projection", "SELECT day, count(*), sum(amount), min(name) FROM events GROUP BY day");
        queries.put(
                "aggregate",
                "SELECT customer % 10, count(*), avg(amount), max(id) FROM events WHERE flag"
                        + " GROUP BY customer % 10");
        queries.put(
                "join",
                "SELECT c.segment, count(*), sum(e.amount) FROM events e JOIN customers c"
                        + " ON e.customer = c.id WHERE e.amount > 500 GROUP BY c.segment");
        queries.put(
                "checksum",
                "SELECT count(*), sum(hash(id, day, customer, amount, name, flag, payload))" + " FROM events");
        queries.put("point", "SELECT * FROM events WHERE day = 'd1' AND id = 6001");
        // 97 * 61: a row the Iceberg table's position deletes remove (id % 97 = 0), still in the Parquet files
        queries.put("deleted", "SELECT * FROM events WHERE day = 'd1' AND id = 5917");
        QUERIES = Collections.unmodifiableMap(queries);
    }

    private final Map<String, String> options;
    private final PrintStream answers;
    private final SparkSession spark;
    private final TaskInputBytes taskInput = new TaskInputBytes();
    private String opened = "";

    private SparkCheckServer(Map<String, String> options, PrintStream answers) throws IOException {
        this.options = options;
        this.answers = answers;
        SparkSession.Builder builder = SparkSession.builder().appName("rangefetch-check-" + option("path"));
        for (Map.Entry<String, String> setting :
                CommandLine.sparkDefaults(Path.of(option("conf-file"))).entrySet()) {
            builder.config(setting.getKey(), setting.getValue());
        }
        this.spark = builder.getOrCreate();
        spark.sparkContext().addSparkListener(taskInput);
    }

    public static void main(String[] args) throws Exception {
        // Spark and its libraries print to standard output too: answers keep the real one, the rest goes to stderr
        PrintStream answers = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        try (SparkCheckServer server = new SparkCheckServer(CommandLine.options(args), answers)) {
            server.serve(System.in);
        }
    }

    private void serve(InputStream commands) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(commands, StandardCharsets.UTF_8));
        answer("READY");
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            String[] words = line.strip().split("\\s+");
            try {
                switch (words[0]) {
                    case "WRITE" -> answer(write());
                    case "OPEN" -> answer(open(words[1]));
                    case "QUERY" -> answer(query(words[1]));
                    case "THREADS" -> answer(threads());
                    case "METRICS" -> answer(metrics());
                    case "COLLECT" -> answer(collect());
                    case "CLOSE" -> answer(closeReadPath());
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

    /**
     * What Spark's metrics system holds of Rangefetch's plugin source (spark.plugins): the number of such sources
     * (the driver's and, in local mode in the same JVM, the executor's), then each gauge and timer of the first as
     * name=value (a timer's value is its count, and its mean and 99th percentile in microseconds follow).
     */
    private static String metrics() {
        List<org.apache.spark.metrics.source.Source> sources =
                scala.jdk.javaapi.CollectionConverters.asJava(org.apache.spark.SparkEnv.get()
                        .metricsSystem()
                        .getSourcesByName("plugin.io.rangefetch.spark.RangefetchSparkPlugin"));
        StringBuilder answer = new StringBuilder("METRICS sources=" + sources.size());
        if (!sources.isEmpty()) {
            com.codahale.metrics.MetricRegistry registry = sources.get(0).metricRegistry();
            registry.getGauges()
                    .forEach((name, gauge) ->
                            answer.append(' ').append(name).append('=').append(gauge.getValue()));
            registry.getTimers().forEach((name, timer) -> {
                com.codahale.metrics.Snapshot snapshot = timer.getSnapshot();
                answer.append(' ').append(name).append('=').append(timer.getCount());
                answer.append(' ').append(name).append(".meanMicros=").append((long) (snapshot.getMean() / 1000));
                answer.append(' ').append(name).append(".p99Micros=").append((long)
                        (snapshot.get99thPercentile() / 1000));
            });
        }
        return answer.toString();
    }

    private String parquet(String table) {
        return "s3a://" + option("bucket") + "/parquet/" + table + "/";
    }

    private String icebergTable(String table) {
        return option("catalog") + ".checks." + table;
    }

    private String write() {
        Dataset<Row> events = spark.range(0, EVENTS, 1, 8)
                .selectExpr(
                        "id",
                        "concat('d', cast(id % 6 AS STRING)) AS day",
                        "cast((id * 7919) % " + CUSTOMERS + " AS INT) AS customer",
                        "cast(((id * 104729) % 100000) / 100.0 AS DECIMAL(10, 2)) AS amount",
                        "concat('name-', cast((id * 31) % 10007 AS STRING)) AS name",
                        "id % 3 = 0 AS flag",
                        "sha2(cast(id AS STRING), 256) AS payload");
        Dataset<Row> customers = spark.range(0, CUSTOMERS, 1, 1)
                .selectExpr(
                        "cast(id AS INT) AS id",
                        "concat('segment-', cast(id % 7 AS STRING)) AS segment",
                        "concat('customer-', cast(id AS STRING)) AS label");
        // row groups of 2 MiB: a projection skips columns inside each file, as on real tables
        events.write()
                .mode("overwrite")
                .option("parquet.block.size", 2 * 1024 * 1024)
                .partitionBy("day")
                .parquet(parquet("events"));
        customers.write().mode("overwrite").parquet(parquet("customers"));

        spark.sql("CREATE NAMESPACE IF NOT EXISTS " + option("catalog") + ".checks");
        String properties = " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read',"
                + " 'write.update.mode'='merge-on-read', 'write.parquet.row-group-size-bytes'='2097152')";
        spark.read().parquet(parquet("events")).createOrReplaceTempView("written_events");
        spark.read().parquet(parquet("customers")).createOrReplaceTempView("written_customers");
        spark.sql("CREATE OR REPLACE TABLE " + icebergTable("events") + " USING iceberg PARTITIONED BY (day)"
                + properties + " AS SELECT id, customer, amount, name, flag, payload, day FROM written_events");
        spark.sql("CREATE OR REPLACE TABLE " + icebergTable("customers") + " USING iceberg" + properties
                + " AS SELECT * FROM written_customers");
        spark.sql("DELETE FROM " + icebergTable("events") + " WHERE id % 97 = 0");
        long deleted = EVENTS
                - spark.sql("SELECT count(*) FROM " + icebergTable("events"))
                        .first()
                        .getLong(0);
        closeReadPath();
        return "OK " + EVENTS + " " + deleted;
    }

    private String open(String kind) {
        switch (kind) {
            case "s3a" -> {
                StructType events = new StructType()
                        .add("id", DataTypes.LongType)
                        .add("customer", DataTypes.IntegerType)
                        .add("amount", DataTypes.createDecimalType(10, 2))
                        .add("name", DataTypes.StringType)
                        .add("flag", DataTypes.BooleanType)
                        .add("payload", DataTypes.StringType)
                        .add("day", DataTypes.StringType);
                StructType customers = new StructType()
                        .add("id", DataTypes.IntegerType)
                        .add("segment", DataTypes.StringType)
                        .add("label", DataTypes.StringType);
                spark.read().schema(events).parquet(parquet("events")).createOrReplaceTempView("events");
                spark.read().schema(customers).parquet(parquet("customers")).createOrReplaceTempView("customers");
            }
            case "iceberg" -> {
                spark.sql("CREATE OR REPLACE TEMP VIEW events AS SELECT * FROM " + icebergTable("events"));
                spark.sql("CREATE OR REPLACE TEMP VIEW customers AS SELECT * FROM " + icebergTable("customers"));
            }
            default -> throw new IllegalArgumentException("OPEN takes s3a or iceberg, not " + kind);
        }
        opened = kind;
        return "OK";
    }

    private String query(String name) throws Exception {
        String text = Objects.requireNonNull(QUERIES.get(name), () -> "no check query " + name);
        long servedBefore = servedBytes();
        Dataset<Row> result = spark.sql(text);
        // planning (Iceberg reads its manifests here, on the driver) is not a task's input: counted apart
        result.queryExecution().executedPlan();
        long servedPlanned = servedBytes();
        taskInput.reset();
        List<Row> rows = result.collectAsList();
        long servedAfter = servedBytes();
        // every task's end event is in once the listener bus is drained
        spark.sparkContext().listenerBus().waitUntilEmpty();
        List<String> lines = new ArrayList<>(rows.size());
        for (Row row : rows) {
            lines.add(canonical(row));
        }
        Collections.sort(lines);
        boolean rangefetch = servedBefore >= 0;
        return "RESULT " + rows.size() + " " + sha256(String.join("\n", lines)) + " " + taskInput.bytes.get() + " "
                + (rangefetch ? servedAfter - servedPlanned : -1) + " "
                + (rangefetch ? servedPlanned - servedBefore : -1);
    }

    /** Bytes Rangefetch has handed to readers on the open read path so far; -1 when it does not serve it. */
    private long servedBytes() throws Exception {
        if (opened.equals("s3a")) {
            FileSystem fs = FileSystem.get(
                    URI.create("s3a://" + option("bucket") + "/"),
                    spark.sparkContext().hadoopConfiguration());
            if (!(fs instanceof S3AFileSystem s3a)
                    || !(s3a.getS3AInternals().getStore() instanceof CompositeService store)) {
                return -1;
            }
            for (Service service : store.getServices()) {
                if (service.getClass().getName().equals("io.rangefetch.hadoop.RangefetchStreamFactory")) {
                    Object factory = call(service, "rangefetch");
                    return (Long) call(call(factory, "statistics"), "bytesServed");
                }
            }
            return -1;
        }
        if (opened.equals("iceberg")) {
            Table table = Spark3Util.loadIcebergTable(spark, icebergTable("events"));
            Object io = table.io();
            if (!io.getClass().getName().equals("io.rangefetch.iceberg.RangefetchS3FileIO")) {
                return -1;
            }
            long served = 0;
            for (Object statistics : (List<?>) call(io, "statistics")) {
                served += (Long) call(statistics, "bytesServed");
            }
            return served;
        }
        return -1;
    }

    /** Calls a public no-argument method of Rangefetch's by name: this program is compiled without Rangefetch. */
    private static Object call(Object target, String method) throws ReflectiveOperationException {
        try {
            return target.getClass().getMethod(method).invoke(target);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw e;
        }
    }

    private String threads() {
        int live = 0;
        Set<String> factories = new TreeSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && thread.getName().startsWith("rangefetch-")) {
                live++;
                Matcher matcher = FACTORY_THREAD.matcher(thread.getName());
                if (matcher.matches()) {
                    factories.add(matcher.group(2));
                }
            }
        }
        return "THREADS " + live + " " + factories.size();
    }

    private String collect() throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        String threads = threads();
        while (!threads.equals("THREADS 0 0") && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50); // the Cleaner's thread closes what the collection found unreachable
            threads = threads();
        }
        return threads;
    }

    private String closeReadPath() {
        CatalogPlugin plugin = spark.sessionState().catalogManager().catalog(option("catalog"));
        if (plugin instanceof SparkCatalog sparkCatalog && sparkCatalog.icebergCatalog() instanceof Closeable c) {
            try {
                c.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing catalog " + option("catalog"), e);
            }
        }
        // forgets every catalog Spark made but the session's own, so the next statement makes a new one
        spark.sessionState().catalogManager().reset();
        try {
            FileSystem.closeAll();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the S3A file systems", e);
        }
        opened = "";
        return "OK";
    }

    /** A row as text: fields joined by tabs, NULL as {@code \N}, decimals in plain notation. */
    static String canonical(Row row) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < row.length(); i++) {
            if (i > 0) {
                line.append('\t');
            }
            Object value = row.get(i);
            line.append(
                    value == null
                            ? "\\N"
                            : value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString());
        }
        return line.toString();
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
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
        closeReadPath();
        spark.stop();
    }
}
