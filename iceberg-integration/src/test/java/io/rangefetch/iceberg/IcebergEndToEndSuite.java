package io.rangefetch.iceberg;

import static org.apache.iceberg.expressions.Expressions.and;
import static org.apache.iceberg.expressions.Expressions.greaterThanOrEqual;
import static org.apache.iceberg.expressions.Expressions.lessThan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SharedFactories;
import io.rangefetch.StreamStatistics;
import io.rangefetch.testing.ProxiedS3;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Iceberg end to end, as a user runs it: a JDBC catalog (SQLite) whose {@code io-impl} is
 * {@link RangefetchS3FileIO}, on a real S3 server reached through a {@link ShapingProxy} whose ledger counts the
 * requests on the wire. The table is a partitioned format-v2 table written by Iceberg's own generic Parquet
 * writers through a second catalog with Iceberg's default {@code S3FileIO}: several appends, a position delete
 * file and an equality delete file. The scan selects 3 columns with a filter that prunes half the partitions
 * (on {@code p}) and most row groups of the files it keeps (on {@code seq}, ascending in every file).
 *
 * <p>Each read opens its own catalog on the shared store, so every FileIO starts cold, and closes it; only the
 * scan is counted (the ledger is emptied after the table is loaded). Subclassed once per backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class IcebergEndToEndSuite {
    private static final String BUCKET = "iceberg-e2e";
    private static final String CATALOG = "e2e";
    private static final Namespace NAMESPACE = Namespace.of("db");
    private static final TableIdentifier EVENTS = TableIdentifier.of(NAMESPACE, "events");
    private static final String RANGEFETCH_THREADS = "rangefetch-";
    private static final Duration THREAD_GRACE = Duration.ofSeconds(10);

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "p", Types.IntegerType.get()),
            Types.NestedField.required(3, "seq", Types.IntegerType.get()),
            Types.NestedField.required(4, "name", Types.StringType.get()),
            Types.NestedField.required(5, "value", Types.DoubleType.get()),
            Types.NestedField.required(6, "category", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("p").build();
    private static final Schema ID_ONLY = SCHEMA.select("id");

    private static final int PARTITIONS = 4;
    private static final int APPENDS = 3;
    private static final int ROWS_PER_FILE = 10_000;
    /** Small row groups, so each data file has several and the {@code seq} bound can skip most of them. */
    private static final String ROW_GROUP_BYTES = "65536";

    private static final int SEQ_BOUND = 2_500;
    private static final Expression FILTER = and(greaterThanOrEqual("p", PARTITIONS / 2), lessThan("seq", SEQ_BOUND));
    private static final String[] COLUMNS = {"id", "name", "value"};

    /** Position deletes: these rows of the first append's file in partition 2. */
    private static final int POSITION_DELETED_PARTITION = 2;

    private static final int POSITION_DELETED_ROWS = 100;
    /** Equality deletes on {@code id}: rows with these {@code seq} values in every file of partition 3. */
    private static final int EQUALITY_DELETED_PARTITION = 3;

    private static final int EQUALITY_DELETED_FROM = 10;
    private static final int EQUALITY_DELETED_TO = 20;

    private ProxiedS3 proxiedS3;
    // proxiedS3's server and proxy
    private S3Server server;
    private ShapingProxy proxy;
    private Path catalogDirectory;

    /** Starts the server this class runs against; aborting here skips the class. */
    protected abstract S3Server startServer() throws Exception;

    @BeforeAll
    final void startServerAndWriteTheTable() throws Exception {
        proxiedS3 = ProxiedS3.start(this::startServer, NetworkModel.unshaped());
        server = proxiedS3.server();
        proxy = proxiedS3.proxy().orElseThrow();
        server.createBucket(BUCKET);
        catalogDirectory = Files.createTempDirectory("iceberg-e2e-catalog");
        JdbcCatalog writer = catalog(defaultProperties());
        try {
            writer.createNamespace(NAMESPACE);
            Table table = writer.createTable(
                    EVENTS,
                    SCHEMA,
                    SPEC,
                    Map.of(
                            TableProperties.FORMAT_VERSION,
                            "2",
                            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
                            ROW_GROUP_BYTES));
            writeEvents(table);
        } finally {
            writer.close();
        }
    }

    /** What a test's FileIOs left lingering is closed, so each test's reads start cold and count their own requests. */
    @AfterEach
    void closeLingeringFactories() {
        SharedFactories.closeIdle();
    }

    @AfterAll
    final void stopServer() throws IOException {
        if (proxiedS3 != null) {
            proxiedS3.close();
        }
        if (catalogDirectory != null) {
            try (Stream<Path> files = Files.walk(catalogDirectory)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    @Test
    void rangefetchReadsTheScansRecordsWithNoHeadAndFewerGetsThanIcebergsStreams() {
        ScanRead byDefault = scan(defaultProperties());
        ScanRead byRangefetch = scan(rangefetchProperties(Map.of()));

        assertThat(ids(byRangefetch.records())).isEqualTo(expectedIds());
        assertThat(byRangefetch.records()).containsExactlyInAnyOrderElementsOf(byDefault.records());
        for (Record record : byRangefetch.records()) {
            long id = (Long) record.getField("id");
            assertThat(record.getField("name")).isEqualTo(name(id));
            assertThat(record.getField("value")).isEqualTo(value(id));
        }

        System.out.printf(
                "%s iceberg scan: Rangefetch %d GETs, %d HEADs, %d bytes;" + " S3FileIO %d GETs, %d HEADs, %d bytes%n",
                server.name(),
                byRangefetch.gets(),
                byRangefetch.heads(),
                byRangefetch.bodyBytes(),
                byDefault.gets(),
                byDefault.heads(),
                byDefault.bodyBytes());
        assertThat(byRangefetch.heads())
                .as("HEADs from Rangefetch's reads: %s", byRangefetch.requests())
                .isZero();
        assertThat(byRangefetch.gets())
                .as("GETs: Rangefetch's %s, S3FileIO's %s", byRangefetch.requests(), byDefault.requests())
                .isLessThan(byDefault.gets());
    }

    /**
     * Iceberg builds its S3 client with retries of its own ({@code s3.retry.*}, left at their defaults here); through
     * {@link RangefetchS3FileIO} every GET makes one attempt all the same: the proxy serves one 503 for each retry
     * Rangefetch counts, and no attempt it did not make.
     */
    @Test
    void everyGetThroughIcebergsClientMakesOneAttemptWhateverItsRetryProperties() {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        JdbcCatalog catalog = catalog(rangefetchProperties(Map.of()));
        try {
            Table table = catalog.loadTable(EVENTS);
            RangefetchS3FileIO io = (RangefetchS3FileIO) table.io();
            ProxyLedger ledger = proxy.ledger();
            ledger.reset();
            for (int i = 0; i < 3; i++) {
                proxy.failNext(Fault.SLOW_DOWN_503);
            }
            List<Record> records = scanRecords(table);
            assertThat(ids(records)).isEqualTo(expectedIds());
            assertThat(ledger.requests().stream()
                            .filter(request -> request.status() == 503)
                            .count())
                    .as("503s served")
                    .isEqualTo(3);
            assertThat(io.statistics().stream()
                            .mapToLong(StreamStatistics::retries)
                            .sum())
                    .as("Rangefetch's retries")
                    .isEqualTo(3);
        } finally {
            catalog.close();
            SharedFactories.closeIdle(); // what the catalog's FileIO left lingering
        }
        threads.assertNoNewThreads(RANGEFETCH_THREADS, THREAD_GRACE);
    }

    @Test
    void disabledSendsExactlyTheRequestsOfIcebergsOwnStreams() {
        ScanRead byDefault = scan(defaultProperties());
        ScanRead disabled = scan(rangefetchProperties(Map.of(RangefetchS3FileIO.ENABLED, "false")));

        assertThat(disabled.records()).containsExactlyInAnyOrderElementsOf(byDefault.records());
        // The same requests, each as often; the order is not what is compared. The ITs run Iceberg's worker pool
        // on one thread (see the pom): with several, planning hands the reader its tasks in a varying order, and
        // the data file Iceberg opens a second time (with its delete files) varies with it, run to run.
        assertThat(disabled.wireRequests()).isNotEmpty().containsExactlyInAnyOrderElementsOf(byDefault.wireRequests());
    }

    @Test
    void aDataFileDeletedBehindTheTablesBackIsNotFoundOnRead() {
        TableIdentifier id = TableIdentifier.of(NAMESPACE, "vanishing");
        String location;
        JdbcCatalog writer = catalog(defaultProperties());
        try {
            Table table = writer.createTable(id, SCHEMA, SPEC, Map.of(TableProperties.FORMAT_VERSION, "2"));
            DataFile file = new GenericParquetFiles(table).data(partition(0), rows(0, 0, 100));
            table.newAppend().appendFile(file).commit();
            location = file.location();
        } finally {
            writer.close();
        }
        try (S3Client s3 = S3Clients.sync(server)) {
            s3.deleteObject(request ->
                    request.bucket(BUCKET).key(URI.create(location).getPath().substring(1)));
        }

        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        JdbcCatalog catalog = catalog(rangefetchProperties(Map.of()));
        try {
            Table table = catalog.loadTable(id);
            assertThat(table.io()).isInstanceOf(RangefetchS3FileIO.class);
            assertThatThrownBy(() -> collect(IcebergGenerics.read(table)))
                    .isInstanceOf(NotFoundException.class)
                    .hasMessageContaining(location);
        } finally {
            catalog.close();
            SharedFactories.closeIdle(); // what the catalog's FileIO left lingering
        }
        threads.assertNoNewThreads(RANGEFETCH_THREADS, THREAD_GRACE);
    }

    /**
     * Opens a catalog with {@code properties}, loads the table, and reads the scan with the ledger counting;
     * closes the catalog, after which no thread Rangefetch started may be left.
     */
    private ScanRead scan(Map<String, String> properties) {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        JdbcCatalog catalog = catalog(properties);
        ScanRead read;
        try {
            Table table = catalog.loadTable(EVENTS);
            assertThat(table.io().getClass().getName()).isEqualTo(properties.get(CatalogProperties.FILE_IO_IMPL));
            ProxyLedger ledger = proxy.ledger();
            ledger.reset();
            List<Record> records = scanRecords(table);
            read = new ScanRead(records, ledger.requests());
            if (table.io() instanceof RangefetchS3FileIO io) {
                if (io.rangefetchEnabled()) {
                    assertThat(io.factoryCount())
                            .as("factories serving the reads")
                            .isPositive();
                    // so that their ending after the close below means something
                    assertThat(threads.newThreads(RANGEFETCH_THREADS))
                            .as("threads the reads started")
                            .isNotEmpty();
                } else {
                    assertThat(io.factoryCount())
                            .as("factories with Rangefetch disabled")
                            .isZero();
                }
            }
        } finally {
            catalog.close();
            // the FileIO's factory lingers for the next scan of a user's JVM; this test's next scan starts cold
            SharedFactories.closeIdle();
        }
        threads.assertNoNewThreads(RANGEFETCH_THREADS, THREAD_GRACE);
        return read;
    }

    /** The suite's scan: {@link #COLUMNS} where {@link #FILTER}. */
    private static List<Record> scanRecords(Table table) {
        return collect(IcebergGenerics.read(table).select(COLUMNS).where(FILTER));
    }

    private static List<Record> collect(IcebergGenerics.ScanBuilder scan) {
        List<Record> records = new ArrayList<>();
        try (CloseableIterable<Record> rows = scan.build()) {
            rows.forEach(row -> records.add(row.copy()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return records;
    }

    /**
     * The table: {@link #APPENDS} appends of one data file per partition, then one row delta with a position
     * delete file and an equality delete file (a later sequence number than every data file, so both apply).
     */
    private static void writeEvents(Table table) {
        GenericParquetFiles files = new GenericParquetFiles(table);
        DataFile positionDeleted = null;
        for (int append = 0; append < APPENDS; append++) {
            var commit = table.newAppend();
            for (int p = 0; p < PARTITIONS; p++) {
                DataFile file = files.data(partition(p), rows(append, p, ROWS_PER_FILE));
                assertThat(file.splitOffsets())
                        .as("row groups of %s", file.location())
                        .hasSizeGreaterThan(2);
                if (append == 0 && p == POSITION_DELETED_PARTITION) {
                    positionDeleted = file;
                }
                commit.appendFile(file);
            }
            commit.commit();
        }

        List<Long> positions = new ArrayList<>();
        for (long position = 0; position < POSITION_DELETED_ROWS; position++) {
            positions.add(position);
        }
        List<Record> keys = new ArrayList<>();
        for (long id : equalityDeletedIds()) {
            keys.add(GenericRecord.create(ID_ONLY).copy(Map.of("id", id)));
        }
        table.newRowDelta()
                .addDeletes(files.positionDeletes(partition(POSITION_DELETED_PARTITION), positionDeleted, positions))
                .addDeletes(files.equalityDeletes(partition(EQUALITY_DELETED_PARTITION), ID_ONLY, keys))
                .commit();
    }

    /** The ids the scan must return, from the rows written less the deleted ones. */
    private static Set<Long> expectedIds() {
        Set<Long> ids = new HashSet<>();
        for (int append = 0; append < APPENDS; append++) {
            for (int p = PARTITIONS / 2; p < PARTITIONS; p++) {
                for (int seq = 0; seq < SEQ_BOUND; seq++) {
                    boolean positionDeleted =
                            append == 0 && p == POSITION_DELETED_PARTITION && seq < POSITION_DELETED_ROWS;
                    if (!positionDeleted) {
                        ids.add(id(append, p, seq));
                    }
                }
            }
        }
        ids.removeAll(equalityDeletedIds());
        return ids;
    }

    private static Set<Long> equalityDeletedIds() {
        Set<Long> ids = new HashSet<>();
        for (int append = 0; append < APPENDS; append++) {
            for (int seq = EQUALITY_DELETED_FROM; seq < EQUALITY_DELETED_TO; seq++) {
                ids.add(id(append, EQUALITY_DELETED_PARTITION, seq));
            }
        }
        return ids;
    }

    private static Set<Long> ids(List<Record> records) {
        Set<Long> ids = new HashSet<>();
        for (Record record : records) {
            assertThat(ids.add((Long) record.getField("id")))
                    .as("id %s read once", record.getField("id"))
                    .isTrue();
        }
        return ids;
    }

    /** {@code count} rows of partition {@code p}, {@code seq} ascending from 0. */
    private static List<Record> rows(int append, int p, int count) {
        List<Record> rows = new ArrayList<>(count);
        GenericRecord row = GenericRecord.create(SCHEMA);
        for (int seq = 0; seq < count; seq++) {
            long id = id(append, p, seq);
            rows.add(row.copy(Map.of(
                    "id",
                    id,
                    "p",
                    p,
                    "seq",
                    seq,
                    "name",
                    name(id),
                    "value",
                    value(id),
                    "category",
                    "category-" + (seq % 7))));
        }
        return rows;
    }

    private static long id(int append, int p, int seq) {
        return append * 1_000_000L + p * 100_000L + seq;
    }

    private static String name(long id) {
        return "name-" + Long.toHexString(id * 0x9E3779B97F4A7C15L);
    }

    private static double value(long id) {
        return id * 0.25;
    }

    private static StructLike partition(int p) {
        GenericRecord partition = GenericRecord.create(SPEC.partitionType());
        partition.set(0, p);
        return partition;
    }

    private JdbcCatalog catalog(Map<String, String> properties) {
        JdbcCatalog catalog = new JdbcCatalog();
        catalog.initialize(CATALOG, properties);
        return catalog;
    }

    /** Iceberg's own S3FileIO, named as a user would name it. */
    private Map<String, String> defaultProperties() {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + catalogDirectory.resolve("catalog.db"));
        properties.put("jdbc.schema-version", "V1");
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + BUCKET + "/warehouse");
        properties.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        properties.put("s3.endpoint", proxy.endpoint().toString());
        properties.put("s3.path-style-access", "true");
        properties.put("s3.access-key-id", server.accessKey());
        properties.put("s3.secret-access-key", server.secretKey());
        properties.put("client.region", server.region());
        return properties;
    }

    /** The same catalog with {@code io-impl} switched to Rangefetch, and {@code extra} rangefetch.* keys. */
    private Map<String, String> rangefetchProperties(Map<String, String> extra) {
        Map<String, String> properties = defaultProperties();
        properties.put(CatalogProperties.FILE_IO_IMPL, "io.rangefetch.iceberg.RangefetchS3FileIO");
        properties.putAll(extra);
        return properties;
    }

    /** What one scan returned and the requests it sent. */
    private record ScanRead(List<Record> records, List<ProxiedRequest> requests) {
        long gets() {
            return requests.stream()
                    .filter(request -> request.method().equals("GET"))
                    .count();
        }

        long heads() {
            return requests.stream()
                    .filter(request -> request.method().equals("HEAD"))
                    .count();
        }

        long bodyBytes() {
            return requests.stream().mapToLong(ProxiedRequest::bodyBytes).sum();
        }

        /** Each request as sent, not what came back: method, object and range. */
        List<String> wireRequests() {
            return requests.stream()
                    .map(request -> request.method() + " " + request.target() + " " + request.rangeHeader())
                    .toList();
        }
    }
}
