package io.rangefetch.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.StreamStatistics;
import io.rangefetch.testing.server.S3ProxyServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Iceberg's JDBC catalog (on SQLite) selecting the FileIO with {@code io-impl}, as a user would, on S3Proxy
 * in-process: Iceberg writes
 * table metadata, manifest lists and manifests with its own writers, and planning a scan reads them back through
 * Rangefetch (manifest lists and metadata files without a length, manifests with one). Data files are
 * metadata-only here; reading Parquet data with Iceberg's generic readers is the end-to-end suite's job.
 */
class CatalogS3ProxyTest {
    private static final String BUCKET = "iceberg-catalog";
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "p", Types.IntegerType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("p").build();

    private static S3ProxyServer server;

    @TempDir
    java.nio.file.Path catalogDirectory;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.start();
        server.createBucket(BUCKET);
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    /** The catalog properties a user sets: Iceberg's S3 settings plus io-impl and rangefetch.* keys. */
    private Map<String, String> catalogProperties(Map<String, String> extra) {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + catalogDirectory.resolve("catalog.db"));
        properties.put(CatalogProperties.FILE_IO_IMPL, "io.rangefetch.iceberg.RangefetchS3FileIO");
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + BUCKET + "/warehouse");
        properties.put("s3.endpoint", server.endpoint().toString());
        properties.put("s3.path-style-access", "true");
        properties.put("s3.access-key-id", server.accessKey());
        properties.put("s3.secret-access-key", server.secretKey());
        properties.put("client.region", server.region());
        properties.putAll(extra);
        return properties;
    }

    @Test
    void planningAScanReadsTableMetadataThroughRangefetchWithoutHeads() throws IOException {
        JdbcCatalog catalog = new JdbcCatalog();
        catalog.initialize("rangefetch", catalogProperties(Map.of("rangefetch.read.min-request-size", "64KiB")));
        try {
            TableIdentifier id = TableIdentifier.of(Namespace.of("db"), "events");
            catalog.createNamespace(id.namespace());
            Table created = catalog.createTable(id, SCHEMA, SPEC, Map.of("format-version", "2"));
            for (int partition = 0; partition < 4; partition++) {
                created.newAppend()
                        .appendFile(dataFile(created, partition, 0))
                        .appendFile(dataFile(created, partition, 1))
                        .commit();
            }

            Table table = catalog.loadTable(id);
            assertThat(table.io()).isInstanceOf(RangefetchS3FileIO.class);
            List<String> planned = new ArrayList<>();
            try (CloseableIterable<FileScanTask> tasks = table.newScan()
                    .filter(Expressions.greaterThanOrEqual("p", 2))
                    .planFiles()) {
                tasks.forEach(task -> planned.add(task.file().location()));
            }
            assertThat(planned)
                    .containsExactlyInAnyOrder(
                            dataPath(table, 2, 0), dataPath(table, 2, 1), dataPath(table, 3, 0), dataPath(table, 3, 1));

            RangefetchS3FileIO io = (RangefetchS3FileIO) table.io();
            List<StreamStatistics> statistics = io.statistics();
            assertThat(statistics).isNotEmpty();
            assertThat(statistics.stream()
                            .mapToLong(StreamStatistics::getRequests)
                            .sum())
                    .isPositive();
            assertThat(statistics.stream()
                            .mapToLong(StreamStatistics::headRequests)
                            .sum())
                    .as("HEADs from reads")
                    .isZero();
        } finally {
            catalog.close();
        }
    }

    @Test
    void aBadRangefetchValueFailsWhenTheCatalogLoadsTheFileIO() {
        JdbcCatalog catalog = new JdbcCatalog();
        assertThatThrownBy(() -> catalog.initialize(
                        "rangefetch", catalogProperties(Map.of("rangefetch.cache.max-memory", "plenty"))))
                .hasStackTraceContaining("rangefetch.cache.max-memory");
    }

    @Test
    void disabledTheCatalogReadsWithIcebergsOwnStreams() throws IOException {
        JdbcCatalog catalog = new JdbcCatalog();
        catalog.initialize("plain", catalogProperties(Map.of(RangefetchS3FileIO.ENABLED, "false")));
        try {
            TableIdentifier id = TableIdentifier.of(Namespace.of("db"), "plain");
            catalog.createNamespace(id.namespace());
            Table created = catalog.createTable(id, SCHEMA, SPEC, Map.of("format-version", "2"));
            created.newAppend().appendFile(dataFile(created, 1, 0)).commit();
            Table table = catalog.loadTable(id);
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                assertThat(tasks).hasSize(1);
            }
            assertThat(((RangefetchS3FileIO) table.io()).factoryCount()).isZero();
        } finally {
            catalog.close();
        }
    }

    private static DataFile dataFile(Table table, int partition, int index) {
        return DataFiles.builder(table.spec())
                .withPath(dataPath(table, partition, index))
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(1024)
                .withRecordCount(10)
                .withPartitionPath("p=" + partition)
                .build();
    }

    private static String dataPath(Table table, int partition, int index) {
        return table.location() + "/data/p=" + partition + "/part-" + index + ".parquet";
    }
}
