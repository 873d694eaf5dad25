package io.rangefetch.benchmarks.data;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.parquet.Parquet;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Makes sure the server holds the iceberg-scan table, building it only when it is missing or was built by
 * another generator ({@link IcebergTableSpec#marker()}), like {@link DataPreparer} does for objects.
 *
 * <p>The table is written with Iceberg's own generic Parquet writers through a FileIO that reaches the server
 * directly, committed by a minimal metadata-file table operations (each commit writes the next
 * {@code vN.metadata.json}): one append per partition, then one row delta with the position deletes. No catalog
 * is needed to read it back: a small pointer object next to the table, written last, holds the current metadata
 * location, and each reader opens the table with its own FileIO through {@link StaticTableOperations}.
 */
public final class IcebergTablePreparer {

    /** The pointer object's key under the table's prefix. */
    static final String POINTER = "current-metadata-location";

    private final S3Client s3;
    private final String bucket;

    /** @param s3 a client that reaches the server directly; stays the caller's to close */
    public IcebergTablePreparer(S3Client s3, String bucket) {
        this.s3 = requireNonNull(s3, "s3 is null");
        this.bucket = requireNonNull(bucket, "bucket is null");
    }

    /**
     * Ensures the table is stored; answers where its metadata is and what the query over it reads.
     *
     * @param io a FileIO that reaches the server directly, to write and plan with; stays the caller's
     */
    public StoredTable ensure(IcebergTableSpec spec, FileIO io) throws IOException {
        requireNonNull(spec, "spec is null");
        requireNonNull(io, "io is null");
        String metadataLocation = existing(spec).orElse(null);
        if (metadataLocation == null) {
            metadataLocation = build(spec, "s3://" + bucket + "/" + spec.prefix(), io);
            String pointer = metadataLocation;
            s3.putObject(
                    request -> request.bucket(bucket)
                            .key(pointerKey(spec))
                            .metadata(Map.of(DataPreparer.MARKER_METADATA, spec.marker())),
                    RequestBody.fromString(pointer));
        }
        return plan(spec, metadataLocation, io);
    }

    private String pointerKey(IcebergTableSpec spec) {
        return spec.prefix() + "/" + POINTER;
    }

    private Optional<String> existing(IcebergTableSpec spec) {
        try {
            var pointer = s3.getObjectAsBytes(request -> request.bucket(bucket).key(pointerKey(spec)));
            if (spec.marker().equals(pointer.response().metadata().get(DataPreparer.MARKER_METADATA))) {
                return Optional.of(pointer.asString(UTF_8));
            }
            return Optional.empty();
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    /** Writes the table at {@code location} through {@code io}; answers its current metadata file. */
    static String build(IcebergTableSpec spec, String location, FileIO io) throws IOException {
        Schema schema = IcebergTableSpec.schema();
        Map<String, String> properties = Map.of(
                TableProperties.FORMAT_VERSION,
                "2",
                TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
                Long.toString(spec.rowGroupBytes()));
        MetadataFileOperations operations = new MetadataFileOperations(io, location);
        operations.commit(
                null,
                TableMetadata.newTableMetadata(
                        schema, IcebergTableSpec.partitionSpec(), SortOrder.unsorted(), location, properties));
        Table table = new BaseTable(operations, "iceberg-scan");
        try (ProgressBar bar = new ProgressBarBuilder()
                .setTaskName("Generating the Iceberg table")
                .setInitialMax(spec.files())
                .setUnit(" files", 1)
                .build()) {
            List<DeleteFile> deletes = new ArrayList<>();
            for (int partition = 0; partition < spec.partitions(); partition++) {
                AppendFiles append = table.newAppend();
                for (int file = partition; file < spec.files(); file += spec.partitions()) {
                    DataFile data = writeDataFile(spec, table, file);
                    append.appendFile(data);
                    if (spec.hasDeletes(file)) {
                        deletes.add(writeDeletes(spec, table, file, data.location()));
                    }
                    bar.step();
                }
                append.commit();
            }
            if (!deletes.isEmpty()) {
                RowDelta delta = table.newRowDelta();
                deletes.forEach(delta::addDeletes);
                delta.commit();
            }
        }
        return operations.current().metadataFileLocation();
    }

    private static DataFile writeDataFile(IcebergTableSpec spec, Table table, int file) throws IOException {
        Record record = GenericRecord.create(table.schema());
        PartitionKey partition = partitionOf(spec, table, file);
        String path = table.locationProvider()
                .newDataLocation(table.spec(), partition, String.format("data-%03d.parquet", file));
        DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(path))
                .forTable(table)
                .withSpec(table.spec())
                .withPartition(partition)
                .createWriterFunc(GenericParquetWriter::create)
                .overwrite()
                .build();
        try (writer) {
            for (long row = 0; row < spec.rowsPerFile(); row++) {
                record.set(0, spec.value(file, row, 0));
                record.set(1, (int) spec.value(file, row, 1));
                for (int column = 2; column < IcebergTableSpec.COLUMNS; column++) {
                    record.set(column, spec.value(file, row, column));
                }
                writer.write(record);
            }
        }
        return writer.toDataFile();
    }

    private static DeleteFile writeDeletes(IcebergTableSpec spec, Table table, int file, String dataPath)
            throws IOException {
        PartitionKey partition = partitionOf(spec, table, file);
        String path = table.locationProvider()
                .newDataLocation(table.spec(), partition, String.format("deletes-%03d.parquet", file));
        // not forTable: it sets the table's schema as the deleted rows' schema, and position deletes carry no rows
        PositionDeleteWriter<Record> writer = Parquet.writeDeletes(table.io().newOutputFile(path))
                .setAll(table.properties())
                .withSpec(table.spec())
                .withPartition(partition)
                .overwrite()
                .buildPositionWriter();
        PositionDelete<Record> delete = PositionDelete.create();
        try (writer) {
            for (long row = 0; row < spec.rowsPerFile(); row++) {
                if (spec.deleted(file, row)) {
                    writer.write(delete.set(dataPath, row));
                }
            }
        }
        return writer.toDeleteFile();
    }

    private static PartitionKey partitionOf(IcebergTableSpec spec, Table table, int file) {
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        Record row = GenericRecord.create(table.schema());
        row.set(1, spec.partitionOf(file));
        key.partition(row);
        return key;
    }

    /** What the query reads, from Iceberg's own planning and column sizes. */
    static StoredTable plan(IcebergTableSpec spec, String metadataLocation, FileIO io) throws IOException {
        Table table = new BaseTable(new StaticTableOperations(metadataLocation, io), "prepared");
        Set<Integer> selected = IcebergTableSpec.SELECTED.stream()
                .map(name -> table.schema().findField(name).fieldId())
                .collect(Collectors.toSet());
        int dataFiles = 0;
        long needed = 0;
        Map<String, Long> deleteFiles = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().filter(spec.filter()).includeColumnStats().planFiles()) {
            for (FileScanTask task : tasks) {
                dataFiles++;
                Map<Integer, Long> sizes = task.file().columnSizes();
                for (int field : selected) {
                    needed += sizes.getOrDefault(field, 0L);
                }
                task.deletes().forEach(delete -> deleteFiles.put(delete.location(), delete.fileSizeInBytes()));
            }
        }
        needed += deleteFiles.values().stream().mapToLong(Long::longValue).sum();
        return new StoredTable(metadataLocation, dataFiles, deleteFiles.size(), needed);
    }

    /**
     * Table operations on metadata files alone, for building the table: each commit writes the next version's
     * metadata file. Single writer, no concurrency check: only the preparer commits, one commit at a time.
     */
    private static final class MetadataFileOperations implements TableOperations {
        private final FileIO io;
        private final String location;
        private TableMetadata current;
        private int version;

        MetadataFileOperations(FileIO io, String location) {
            this.io = io;
            this.location = location;
        }

        @Override
        public TableMetadata current() {
            return current;
        }

        @Override
        public TableMetadata refresh() {
            return current;
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            if (base != current) {
                throw new IllegalStateException("a commit based on a stale version of the table");
            }
            version++;
            String file = metadataFileLocation(String.format("v%d.metadata.json", version));
            TableMetadataParser.overwrite(metadata, io.newOutputFile(file));
            current = TableMetadataParser.read(io, file);
        }

        @Override
        public FileIO io() {
            return io;
        }

        @Override
        public String metadataFileLocation(String fileName) {
            return location + "/metadata/" + fileName;
        }

        @Override
        public LocationProvider locationProvider() {
            return LocationProviders.locationsFor(location, current.properties());
        }
    }
}
