package io.rangefetch.it.spark;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark 4.1.1 in local mode reading through both adapters, loaded from the bundle jar alone, with exactly the lines of
 * docs/SPARK.md, against MinIO behind the shaping proxy (20 ms to the first byte, 80 MB/s a connection). Each Spark
 * runs in a JVM of its own ({@link SparkChild} running {@code io.rangefetch.sparkcheck.SparkCheckServer}) whose class
 * path is the {@code spark-tpch} build's (Spark, S3A 3.4.2, the AWS SDK, Iceberg's Spark runtime) and the bundle.
 *
 * <p>The baseline is what Spark uses without Rangefetch: S3A's classic stream and Iceberg's {@code S3FileIO}. Every
 * query runs cold (a fresh file system or catalog), and the proxy's ledger counts its requests.
 *
 * <p>Needs the Spark build and the bundle jar ({@link SparkChild#classPath}) and a MinIO binary: {@code .ci/run}
 * builds both and runs this with {@code -Dit.test=SparkEnginesIT}; the module's default run leaves it out.
 */
class SparkEnginesIT {
    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    private static final String CHILD = "io.rangefetch.sparkcheck.SparkCheckServer";
    private static final String HEAP = "2g";
    /** The bucket and catalog docs/SPARK.md names. */
    private static final String BUCKET = "my-bucket";

    private static final String CATALOG = "lake";
    private static final List<String> QUERIES =
            List.of("filter", "projection", "aggregate", "join", "checksum", "point", "deleted");
    private static final Pattern DOC_BLOCK =
            Pattern.compile("<!-- spark-test: ([a-z0-9-]+) -->\\s*```properties\\n(.*?)```", Pattern.DOTALL);

    private static ProxiedS3 proxiedS3;
    // proxiedS3's server and proxy
    private static S3Server minio;
    private static ShapingProxy proxy;
    private static String classPath;
    private static Map<String, String> documented;
    // the data set's catalog and the Spark logs' settings files
    @TempDir
    static Path work;
    // Spark without Rangefetch: writes the data set once, then runs the baselines
    private static SparkChild defaultsSpark;
    // Spark with docs/SPARK.md's lines, made at its first use: both tests run in it (one JVM start the fewer)
    private static SparkChild rangefetchSpark;
    private static long deletedEvents;

    @BeforeAll
    static void start() throws Exception {
        classPath = SparkChild.classPath(REPOSITORY);
        documented = documentedBlocks(REPOSITORY.resolve("docs/SPARK.md"));
        assertThat(documented).containsKeys("s3a", "s3a-bucket", "iceberg", "metrics");
        proxiedS3 = ProxiedS3.start(MinioServer::start, NetworkModel.s3InRegion());
        minio = proxiedS3.server();
        proxy = proxiedS3.proxy().orElseThrow();
        minio.createBucket(BUCKET);
        defaultsSpark = child("defaults", defaults());
        String[] written = defaultsSpark.call("WRITE").split(" ");
        assertThat(written[0])
                .as("WRITE answered %s", String.join(" ", written))
                .isEqualTo("OK");
        deletedEvents = Long.parseLong(written[2]);
        assertThat(deletedEvents)
                .as("rows the Iceberg table's position deletes remove")
                .isPositive();
    }

    @AfterAll
    static void stop() {
        if (rangefetchSpark != null) {
            rangefetchSpark.close();
        }
        if (defaultsSpark != null) {
            defaultsSpark.close();
        }
        if (proxiedS3 != null) {
            proxiedS3.close();
        }
    }

    /** The blocks of docs/SPARK.md marked {@code <!-- spark-test: name -->}, by name, as they are written there. */
    static Map<String, String> documentedBlocks(Path doc) throws IOException {
        Map<String, String> blocks = new LinkedHashMap<>();
        Matcher matcher = DOC_BLOCK.matcher(Files.readString(doc, StandardCharsets.UTF_8));
        while (matcher.find()) {
            blocks.put(matcher.group(1), matcher.group(2));
        }
        return blocks;
    }

    /** A documented block's settings by key, from its {@code key value} lines (blank and {@code #} lines skipped). */
    static Map<String, String> settings(String block) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : block.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] parts = trimmed.split("\\s+", 2);
            settings.put(parts[0], parts[1]);
        }
        return settings;
    }

    @Test
    void bothAdaptersAnswerAsSparksDefaultsWithFewerGetsAndTheirInputInSparksMetrics() throws Exception {
        Map<String, QueryRun> baseline = new LinkedHashMap<>();
        runAll(defaultsSpark, "s3a", baseline);
        runAll(defaultsSpark, "iceberg", baseline);
        Map<String, QueryRun> rangefetch = new LinkedHashMap<>();
        runAll(rangefetchSpark(), "s3a", rangefetch);
        runAll(rangefetchSpark(), "iceberg", rangefetch);

        System.out.println("query                without Rangefetch: GETs HEADs   MB  task input |"
                + "  with Rangefetch: GETs HEADs   MB  task input  handed (in planning)");
        for (String key : baseline.keySet()) {
            QueryRun before = baseline.get(key);
            QueryRun after = rangefetch.get(key);
            System.out.printf(
                    "%-20s %24d %5d %6.1f %11d | %21d %5d %6.1f %11d %8d (%d)%n",
                    key,
                    before.gets,
                    before.heads,
                    before.bodyBytes / 1e6,
                    before.taskInput,
                    after.gets,
                    after.heads,
                    after.bodyBytes / 1e6,
                    after.taskInput,
                    after.handed,
                    after.handedPlanning);
        }

        for (String key : baseline.keySet()) {
            QueryRun before = baseline.get(key);
            QueryRun after = rangefetch.get(key);
            // the same answer as Spark's own path
            assertThat(after.rows).as("%s rows", key).isEqualTo(before.rows);
            assertThat(after.checksum).as("%s result", key).isEqualTo(before.checksum);
            assertThat(after.handed).as("%s: bytes handed by Rangefetch", key).isPositive();
            if (key.startsWith("s3a ")) {
                // Spark's input metrics are the bytes Rangefetch handed to the task's readers, vectored reads included
                assertThat(after.taskInput)
                        .as("%s: Spark's task input bytes", key)
                        .isEqualTo(after.handed);
            } else {
                // Iceberg reads position deletes on its delete worker pool and plans part of a scan on the driver
                // as the query runs: bytes Spark's per-thread task metrics never see, whatever the FileIO. What the
                // tasks' own readers were handed is counted as Iceberg's own S3FileIO counts it
                assertThat(after.taskInput)
                        .as("%s: Spark's task input bytes", key)
                        .isEqualTo(before.taskInput)
                        .isPositive()
                        .isLessThanOrEqualTo(after.handed);
            }
            assertThat(after.heads).as("%s HEADs", key).isLessThanOrEqualTo(before.heads);
        }
        for (String kind : List.of("s3a", "iceberg")) {
            long gets = total(baseline, kind, true);
            long rangefetchGets = total(rangefetch, kind, true);
            assertThat(rangefetchGets)
                    .as("%s: GETs with Rangefetch against %d without", kind, gets)
                    .isLessThan(gets);
        }
        // Spark's metrics system holds Rangefetch's figures (the plugin of docs/SPARK.md), and they add up what the
        // queries were handed
        Map<String, String> metrics = metrics(rangefetchSpark());
        System.out.println("Rangefetch's source in Spark's metrics system: " + metrics);
        long handed = rangefetch.values().stream().mapToLong(QueryRun::handed).sum();
        assertThat(Long.parseLong(metrics.get("sources"))).isPositive();
        assertThat(Long.parseLong(metrics.get("bytes.served"))).isGreaterThanOrEqualTo(handed);
        assertThat(Long.parseLong(metrics.get("get.requests.complete"))).isPositive();
        assertThat(Long.parseLong(metrics.get("get.duration")))
                .as("GETs timed")
                .isGreaterThanOrEqualTo(Long.parseLong(metrics.get("get.requests.complete")));
        assertThat(Long.parseLong(metrics.get("cache.memory.limit"))).isPositive();
        // a row the Iceberg table's deletes removed is found in the Parquet files and not in the table
        assertThat(rangefetch.get("s3a point").rows).isOne();
        assertThat(rangefetch.get("iceberg point").rows).isOne();
        assertThat(rangefetch.get("s3a deleted").rows).isOne();
        assertThat(rangefetch.get("iceberg deleted").rows).isZero();
    }

    @Test
    void manyQueriesKeepOneFactoryPerAdapterAndLeaveNoThreadOnceTheReadPathCloses() throws Exception {
        SparkChild spark = rangefetchSpark();
        // a hundred queries of an Iceberg table; S3A, whose factories Hadoop's file system cache keeps, fewer
        for (Map.Entry<String, Integer> run : Map.of("iceberg", 100, "s3a", 20).entrySet()) {
            String kind = run.getKey();
            expectOk(spark, "CLOSE");
            expectOk(spark, "OPEN " + kind);
            Threads afterTen = null;
            for (int i = 1; i <= run.getValue(); i++) {
                assertThat(spark.call("QUERY " + (i % 2 == 0 ? "point" : "filter")))
                        .startsWith("RESULT ");
                if (i == 10) {
                    afterTen = threads(spark.call("THREADS"));
                }
            }
            Threads afterAll = threads(spark.call("THREADS"));
            System.out.printf(
                    "%s, one session: rangefetch threads after 10 queries %s, after %d %s%n",
                    kind, afterTen, run.getValue(), afterAll);
            assertThat(afterAll.factories)
                    .as("%s: factories owning threads", kind)
                    .isLessThanOrEqualTo(1);
            assertThat(afterAll.live).isLessThanOrEqualTo(Math.max(afterTen.live, Threads.CEILING));
            expectOk(spark, "CLOSE");
            assertThat(threads(spark.call("THREADS")))
                    .as("%s: after the read path closed", kind)
                    .isEqualTo(new Threads(0, 0));
        }
        // Hadoop's file system cache off: a file system per task, never closed by Spark
        Map<String, String> uncached = rangefetchLines();
        uncached.put("spark.hadoop.fs.s3a.impl.disable.cache", "true");
        try (SparkChild uncachedSpark = child("rangefetch-uncached", uncached)) {
            expectOk(uncachedSpark, "OPEN s3a");
            Threads afterTen = null;
            for (int i = 1; i <= 30; i++) {
                assertThat(uncachedSpark.call("QUERY " + (i % 2 == 0 ? "point" : "filter")))
                        .startsWith("RESULT ");
                if (i == 10) {
                    afterTen = threads(uncachedSpark.call("THREADS"));
                }
            }
            Threads afterAll = threads(uncachedSpark.call("THREADS"));
            Threads collected = threads(uncachedSpark.call("COLLECT"));
            System.out.printf(
                    "s3a, disable.cache=true: rangefetch threads after 10 queries %s, after 30 %s,"
                            + " after collection %s%n",
                    afterTen, afterAll, collected);
            // Spark made a file system per task and closed none: the shared factory lived until they were collected
            assertThat(afterAll.factories).isLessThanOrEqualTo(1);
            assertThat(afterAll.live).isLessThanOrEqualTo(Math.max(afterTen.live, Threads.CEILING));
            assertThat(collected).isEqualTo(new Threads(0, 0));
        }
    }

    /** The child's answer to METRICS: Rangefetch's plugin source in Spark's metrics system, by name. */
    private static Map<String, String> metrics(SparkChild spark) throws IOException {
        String[] words = spark.call("METRICS").split(" ");
        assertThat(words[0]).as("METRICS answered %s", String.join(" ", words)).isEqualTo("METRICS");
        Map<String, String> metrics = new LinkedHashMap<>();
        for (int i = 1; i < words.length; i++) {
            String[] pair = words[i].split("=", 2);
            metrics.put(pair[0], pair[1]);
        }
        return metrics;
    }

    /** Live {@code rangefetch-} threads and the factories owning them, as the child counts them. */
    private record Threads(int live, int factories) {
        /** One factory's most: fetch and exchange threads for 16 requests in flight, a watchdog, a backoff timer. */
        static final int CEILING = 3 * 16 + 2;
    }

    private static Threads threads(String answer) {
        String[] words = answer.split(" ");
        assertThat(words[0]).as("answer %s", answer).isEqualTo("THREADS");
        return new Threads(Integer.parseInt(words[1]), Integer.parseInt(words[2]));
    }

    /** A query's answer and what it cost on the proxy's ledger. */
    private record QueryRun(
            long rows,
            String checksum,
            long taskInput,
            long handed,
            long handedPlanning,
            long gets,
            long heads,
            long bodyBytes) {}

    /** Runs every query cold on one kind of table, each with a fresh file system or catalog. */
    private static void runAll(SparkChild spark, String kind, Map<String, QueryRun> runs) throws IOException {
        for (String query : QUERIES) {
            expectOk(spark, "CLOSE");
            expectOk(spark, "OPEN " + kind);
            ProxyLedger ledger = proxy.ledger();
            ledger.reset();
            String answer = spark.call("QUERY " + query);
            long gets = ledger.gets();
            long heads = ledger.heads();
            long body = ledger.responseBodyBytes();
            String[] words = answer.split(" ");
            assertThat(words[0]).as("%s %s answered %s", kind, query, answer).isEqualTo("RESULT");
            runs.put(
                    kind + " " + query,
                    new QueryRun(
                            Long.parseLong(words[1]),
                            words[2],
                            Long.parseLong(words[3]),
                            Long.parseLong(words[4]),
                            Long.parseLong(words[5]),
                            gets,
                            heads,
                            body));
        }
    }

    private static long total(Map<String, QueryRun> runs, String kind, boolean gets) {
        return runs.entrySet().stream()
                .filter(run -> run.getKey().startsWith(kind + " "))
                .mapToLong(run -> gets ? run.getValue().gets : run.getValue().heads)
                .sum();
    }

    private static void expectOk(SparkChild spark, String command) throws IOException {
        assertThat(spark.call(command)).as(command).isEqualTo("OK");
    }

    private static SparkChild rangefetchSpark() throws IOException {
        if (rangefetchSpark == null) {
            rangefetchSpark = child("rangefetch", rangefetchLines());
        }
        return rangefetchSpark;
    }

    private static SparkChild child(String name, Map<String, String> settings) throws IOException {
        Path conf = work.resolve(name + ".conf");
        List<String> lines = new ArrayList<>();
        settings.forEach((key, value) -> lines.add(key + " " + value));
        Files.write(conf, lines, StandardCharsets.UTF_8);
        Path log = Path.of("target", "spark-" + name + ".log").toAbsolutePath();
        Files.createDirectories(log.getParent());
        Files.deleteIfExists(log);
        Map<String, String> options = new LinkedHashMap<>();
        options.put("path", name);
        options.put("conf-file", conf.toString());
        options.put("bucket", BUCKET);
        options.put("catalog", CATALOG);
        return SparkChild.start(CHILD, classPath, options, HEAP, log);
    }

    /**
     * What Spark runs with here besides any Rangefetch line: local mode on loopback, S3A and the Iceberg catalog on
     * the proxy's endpoint with MinIO's keys. Iceberg's reads are its own {@code S3FileIO}, S3A's its classic stream.
     */
    private static Map<String, String> defaults() {
        String endpoint = proxy.endpoint().toString();
        Map<String, String> settings = SparkSettings.localS3A(endpoint, minio);
        settings.put("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
        String catalog = "spark.sql.catalog." + CATALOG;
        settings.put(catalog, "org.apache.iceberg.spark.SparkCatalog");
        settings.put(catalog + ".catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
        settings.put(catalog + ".uri", "jdbc:sqlite:" + work.resolve("catalog.db"));
        settings.put(catalog + ".jdbc.schema-version", "V1");
        // no table cache: Spark's caching wrapper cannot be closed, and closing the catalog (so its FileIO) is what
        // makes a query cold and what the lifecycle test checks
        settings.put(catalog + ".cache-enabled", "false");
        settings.put(catalog + ".warehouse", "s3://" + BUCKET + "/warehouse");
        settings.put(catalog + ".io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        settings.put(catalog + ".s3.endpoint", endpoint);
        settings.put(catalog + ".s3.path-style-access", "true");
        settings.put(catalog + ".s3.access-key-id", minio.accessKey());
        settings.put(catalog + ".s3.secret-access-key", minio.secretKey());
        settings.put(catalog + ".client.region", minio.region());
        return settings;
    }

    /**
     * The defaults with docs/SPARK.md's blocks for S3A, a bucket and the Iceberg catalog over them; and no linger of the
     * shared factories ({@code factory.linger}): here every query runs cold, its read path closed before the next, and
     * the lifecycle test checks that closing the read path leaves no thread, where a user's executor would keep the
     * factory warm for its next query (SharedClientsTest covers that, with FileIO copies as Spark deserializes them).
     */
    private static Map<String, String> rangefetchLines() {
        Map<String, String> settings = defaults();
        for (String block : List.of("s3a", "s3a-bucket", "iceberg", "metrics")) {
            settings.putAll(settings(documented.get(block)));
        }
        settings.put("spark.hadoop.fs.s3a.rangefetch.factory.linger", "0s");
        settings.put("spark.sql.catalog." + CATALOG + ".rangefetch.factory.linger", "0s");
        return settings;
    }
}
