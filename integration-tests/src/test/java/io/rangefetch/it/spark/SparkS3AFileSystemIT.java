package io.rangefetch.it.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.testing.ProxiedS3;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3Server;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Spark 3.5 or Spark 4.0 (the lines whose Hadoop, 3.3 and 3.4.1, has no S3A stream factory seam) in local mode,
 * reading a partitioned Parquet data set through {@code s3a://} with {@code RangefetchS3AFileSystem} as docs/SPARK.md
 * tells users (its {@code s3a-filesystem} block), against the same Spark with S3A's own file system, on MinIO behind
 * the proxy, unshaped (it only counts requests). Each Spark runs in a JVM of its own ({@link SparkChild} running
 * {@code io.rangefetch.sparkcompat.S3ACompatServer}) on the {@code spark-compat} build's class path for the line and
 * Rangefetch's bundle jar.
 *
 * <p><b>What it shows.</b> Every query answers exactly what S3A's own file system answers. The reads really are
 * Rangefetch's: {@code open} and {@code openFile} hand out Rangefetch streams, and in every query the bytes Spark's
 * tasks read through {@code s3a://} are the bytes Rangefetch's streams served them, counted on the tasks' own threads
 * (the server's {@code TaskReads} plugin) where S3A's own streams leave no such count. That count lives in the
 * thread's IOStatistics context, which Hadoop has from 3.3.5: on Spark 3.5's own Hadoop 3.3.4 it is assumed away, and
 * the answers and the stream classes are what show it there.
 *
 * <p><b>Running it.</b> The class runs once per Spark line named in {@code -Dspark.compat.lines} ({@code 3.5},
 * {@code 4.0} or {@code 4.0,3.5}), each line built first ({@code ./mvnw -B -f spark-compat/pom.xml -Pspark-<line>
 * package}), and the bundle jar; it needs a MinIO binary. Each line gets a MinIO and Spark JVMs of its own, stopped
 * before the next line starts. {@code .ci/run} runs both lines with {@code -Dit.test=SparkS3AFileSystemIT}; the
 * module's default run leaves it out.
 */
@ParameterizedClass(name = "Spark {0}")
@MethodSource("lines")
class SparkS3AFileSystemIT {
    /** The system property naming the Spark lines to test, separated by commas. */
    static final String LINES_PROPERTY = "spark.compat.lines";
    /** The lines the spark-compat build has a profile for. */
    private static final List<String> LINES = List.of("3.5", "4.0");

    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    private static final String CHILD = "io.rangefetch.sparkcompat.S3ACompatServer";
    private static final String HEAP = "1g";
    private static final String BUCKET = "my-bucket";
    private static final String S3A_FILE_SYSTEM = "org.apache.hadoop.fs.s3a.S3AFileSystem";
    private static final String RANGEFETCH_FILE_SYSTEM = "io.rangefetch.hadoop.RangefetchS3AFileSystem";
    private static final String RANGEFETCH_STREAM = "io.rangefetch.hadoop.RangefetchFSInputStream";
    private static final List<String> QUERIES = List.of("filter", "projection", "aggregate", "join", "checksum");

    // the line under test and what runs for it: one line at a time
    private static String line;
    private static long started;
    private static ProxiedS3 proxiedS3;
    private static ShapingProxy proxy;
    // the Spark settings files
    @TempDir
    static Path work;
    // S3A's own file system: writes the data set, then answers the queries as Spark does without Rangefetch
    private static SparkChild s3aSpark;
    // docs/SPARK.md's s3a-filesystem lines
    private static SparkChild rangefetchSpark;
    private static final Map<String, QueryRun> S3A_RUNS = new LinkedHashMap<>();
    private static final Map<String, QueryRun> RANGEFETCH_RUNS = new LinkedHashMap<>();

    // the invocation's line, for the tests' messages
    private final String sparkLine;

    SparkS3AFileSystemIT(String sparkLine) {
        this.sparkLine = sparkLine;
    }

    /** The lines {@value #LINES_PROPERTY} names, in its order. */
    static List<String> lines() {
        List<String> lines = Arrays.stream(
                        System.getProperty(LINES_PROPERTY, "").split(","))
                .map(String::strip)
                .filter(name -> !name.isEmpty())
                .toList();
        if (lines.isEmpty() || !LINES.containsAll(lines)) {
            throw new IllegalArgumentException("-D" + LINES_PROPERTY + " names the Spark lines to test, of " + LINES
                    + " (e.g. -D" + LINES_PROPERTY + "=4.0,3.5); it is '" + System.getProperty(LINES_PROPERTY, "")
                    + "'");
        }
        return lines;
    }

    @BeforeParameterizedClassInvocation
    static void start(String sparkLine) throws Exception {
        line = sparkLine;
        started = System.nanoTime();
        S3A_RUNS.clear();
        RANGEFETCH_RUNS.clear();
        String classPath = SparkChild.classPath(
                REPOSITORY,
                Path.of("spark-compat", "target", "spark-" + line),
                "./mvnw -B -f spark-compat/pom.xml -Pspark-" + line + " package");
        Map<String, String> documented =
                SparkEnginesIT.settings(SparkEnginesIT.documentedBlocks(REPOSITORY.resolve("docs/SPARK.md"))
                        .getOrDefault("s3a-filesystem", ""));
        assertThat(documented)
                .as("docs/SPARK.md's s3a-filesystem block")
                .containsEntry("spark.hadoop.fs.s3a.impl", RANGEFETCH_FILE_SYSTEM);

        proxiedS3 = ProxiedS3.start(MinioServer::start, NetworkModel.unshaped());
        S3Server minio = proxiedS3.server();
        proxy = proxiedS3.proxy().orElseThrow();
        minio.createBucket(BUCKET);

        Map<String, String> defaults = defaults(minio);
        s3aSpark = child(classPath, "s3a", defaults);
        String[] version = s3aSpark.call("VERSION").split(" ");
        assertThat(version[0])
                .as("VERSION answered %s", String.join(" ", version))
                .isEqualTo("VERSION");
        assertThat(version[1]).as("Spark's version").startsWith(line + ".");
        System.out.printf("Spark %s, Hadoop %s%n", version[1], version[2]);
        String[] written = s3aSpark.call("WRITE").split(" ");
        assertThat(written[0])
                .as("WRITE answered %s", String.join(" ", written))
                .isEqualTo("OK");
        assertThat(Integer.parseInt(written[2])).as("Parquet files written").isGreaterThan(1);

        Map<String, String> rangefetch = new LinkedHashMap<>(defaults);
        rangefetch.putAll(documented);
        rangefetchSpark = child(classPath, "rangefetch", rangefetch);
        for (String query : QUERIES) {
            S3A_RUNS.put(query, run(s3aSpark, query));
            RANGEFETCH_RUNS.put(query, run(rangefetchSpark, query));
        }
        System.out.println("query       rows   tasks | S3A's own: task bytes  GETs |"
                + " Rangefetch's: task bytes  served to tasks  its GETs  proxy GETs");
        for (String query : QUERIES) {
            QueryRun s3a = S3A_RUNS.get(query);
            QueryRun ours = RANGEFETCH_RUNS.get(query);
            System.out.printf(
                    Locale.ROOT,
                    "%-10s %5d %7d | %20d %5d | %23d %16d %9d %11d%n",
                    query,
                    ours.rows,
                    ours.tasks,
                    s3a.taskBytes,
                    s3a.proxyGets,
                    ours.taskBytes,
                    ours.served,
                    ours.rangefetchGets,
                    ours.proxyGets);
        }
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        if (rangefetchSpark != null) {
            rangefetchSpark.close();
            rangefetchSpark = null;
        }
        if (s3aSpark != null) {
            s3aSpark.close();
            s3aSpark = null;
        }
        if (proxiedS3 != null) {
            proxiedS3.close();
            proxiedS3 = null;
        }
        if (line != null) {
            System.out.printf(
                    Locale.ROOT, "Spark %s line: %d s%n", line, (System.nanoTime() - started) / 1_000_000_000L);
            line = null;
        }
    }

    @Test
    void everyQueryAnswersWhatS3AsOwnFileSystemAnswers() {
        for (String query : QUERIES) {
            QueryRun s3a = S3A_RUNS.get(query);
            QueryRun ours = RANGEFETCH_RUNS.get(query);
            assertThat(s3a.rows).as("Spark %s, %s: rows", sparkLine, query).isPositive();
            assertThat(ours.rows).as("Spark %s, %s: rows", sparkLine, query).isEqualTo(s3a.rows);
            assertThat(ours.checksum)
                    .as("Spark %s, %s: result", sparkLine, query)
                    .isEqualTo(s3a.checksum);
            // the measure below tells the two apart: S3A's own streams leave no Rangefetch count in a task
            assertThat(s3a.taskBytes)
                    .as("Spark %s, %s: bytes S3A's tasks read", sparkLine, query)
                    .isPositive();
            if (s3a.served >= 0) {
                assertThat(s3a.served)
                        .as("Spark %s, %s: bytes Rangefetch served S3A's tasks", sparkLine, query)
                        .isZero();
            }
        }
    }

    @Test
    void openAndOpenFileHandOutRangefetchStreams() throws IOException {
        assertThat(stream(s3aSpark))
                .as("Spark %s: S3A's own file system and streams", sparkLine)
                .startsWith(S3A_FILE_SYSTEM + " ")
                .doesNotContain(RANGEFETCH_STREAM);
        assertThat(stream(rangefetchSpark))
                .as(
                        "Spark %s: the file system and the streams of open and openFile; the Spark log's warnings: %s",
                        sparkLine, warnings())
                .isEqualTo(RANGEFETCH_FILE_SYSTEM + " " + RANGEFETCH_STREAM + " " + RANGEFETCH_STREAM);
    }

    @Test
    void everyByteTheQueriesReadCameThroughRangefetchStreams() throws IOException {
        // a task's stream counts reach its thread's IOStatistics context, which Hadoop has from 3.3.5: on Spark 3.5's
        // own 3.3.4 there is nothing to count them by (the stream checks above still hold there)
        assumeTrue(
                RANGEFETCH_RUNS.values().stream().allMatch(run -> run.served >= 0),
                "Spark " + sparkLine + ": this Hadoop has no IOStatistics context (3.3.4)");
        for (String query : QUERIES) {
            QueryRun ours = RANGEFETCH_RUNS.get(query);
            assertThat(ours.served)
                    .as(
                            "Spark %s, %s: bytes Rangefetch's streams served the tasks; the Spark log's warnings: %s",
                            sparkLine, query, warnings())
                    .isPositive()
                    .isEqualTo(ours.taskBytes);
        }
        assertThat(RANGEFETCH_RUNS.values().stream()
                        .mapToLong(run -> run.rangefetchGets)
                        .sum())
                .as("Spark %s: GETs Rangefetch's streams sent for the tasks", sparkLine)
                .isPositive();
    }

    /** A query's answer, what its tasks read, and the GETs the proxy saw while it ran. */
    private record QueryRun(
            long rows, String checksum, long tasks, long taskBytes, long served, long rangefetchGets, long proxyGets) {}

    private static QueryRun run(SparkChild spark, String query) throws IOException {
        ProxyLedger ledger = proxy.ledger();
        ledger.reset();
        String answer = spark.call("QUERY " + query);
        long gets = ledger.gets();
        String[] words = answer.split(" ");
        assertThat(words[0]).as("%s answered %s", query, answer).isEqualTo("RESULT");
        return new QueryRun(
                Long.parseLong(words[1]),
                words[2],
                Long.parseLong(words[3]),
                Long.parseLong(words[4]),
                Long.parseLong(words[5]),
                Long.parseLong(words[6]),
                gets);
    }

    /** The child's file system class and the classes of the streams {@code open} and {@code openFile} gave it. */
    private static String stream(SparkChild spark) throws IOException {
        String answer = spark.call("STREAM");
        assertThat(answer).as("STREAM answered %s", answer).startsWith("STREAM ");
        return answer.substring("STREAM ".length());
    }

    /** The Rangefetch Spark's logged warnings about Rangefetch (why its reads would be S3A's, say). */
    private static String warnings() throws IOException {
        try (Stream<String> lines = Files.lines(log("rangefetch"), StandardCharsets.UTF_8)) {
            List<String> warnings = lines.filter(text -> text.contains("WARN")
                            && text.toLowerCase(Locale.ROOT).contains("rangefetch"))
                    .collect(Collectors.toList());
            return warnings.isEmpty() ? "none" : String.join(" | ", warnings);
        }
    }

    private static Path log(String name) {
        return Path.of("target", "spark-compat-" + line + "-" + name + ".log").toAbsolutePath();
    }

    private static SparkChild child(String classPath, String name, Map<String, String> settings) throws IOException {
        Path conf = work.resolve("spark-" + line + "-" + name + ".conf");
        List<String> lines = new ArrayList<>();
        settings.forEach((key, value) -> lines.add(key + " " + value));
        Files.write(conf, lines, StandardCharsets.UTF_8);
        Path log = log(name);
        Files.createDirectories(log.getParent());
        Files.deleteIfExists(log);
        Map<String, String> options = new LinkedHashMap<>();
        options.put("path", "spark-" + line + "-" + name);
        options.put("conf-file", conf.toString());
        options.put("bucket", BUCKET);
        return SparkChild.start(CHILD, classPath, options, HEAP, log);
    }

    /**
     * What both Sparks run with: local mode on loopback, S3A's own file system on the proxy's endpoint with MinIO's
     * keys, and the plugin that counts what tasks read.
     */
    private static Map<String, String> defaults(S3Server minio) {
        Map<String, String> settings = SparkSettings.localS3A(proxy.endpoint().toString(), minio);
        settings.put("spark.plugins", "io.rangefetch.sparkcompat.TaskReads");
        settings.put("spark.hadoop.fs.s3a.impl", S3A_FILE_SYSTEM);
        return settings;
    }
}
