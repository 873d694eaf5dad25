package io.rangefetch.iceberg;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;

/**
 * Writes a table's data and delete files with Iceberg's own generic Parquet writers, as an engine's writer
 * would: the table's properties (row group size among them), its spec and the partition the rows belong to.
 * What it returns is ready to commit with {@code newAppend} or {@code newRowDelta}. Writes go through the
 * table's FileIO, so they are Iceberg's, whatever reads later.
 */
final class GenericParquetFiles {
    private final Table table;

    GenericParquetFiles(Table table) {
        this.table = requireNonNull(table, "table is null");
    }

    /** One data file in {@code partition} holding {@code records}, in order. */
    DataFile data(StructLike partition, List<Record> records) {
        try {
            DataWriter<Record> writer = Parquet.writeData(newFile(partition, "data"))
                    .forTable(table)
                    .withPartition(partition)
                    .createWriterFunc(GenericParquetWriter::create)
                    .overwrite()
                    .build();
            try (writer) {
                writer.write(records);
            }
            return writer.toDataFile();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A position delete file in {@code partition} deleting {@code positions} (ascending) of {@code dataFile}. */
    DeleteFile positionDeletes(StructLike partition, DataFile dataFile, List<Long> positions) {
        try {
            // not forTable: it sets the table's schema as the deleted rows' schema, and 1.12 writes no row data
            PositionDeleteWriter<Record> writer = Parquet.writeDeletes(newFile(partition, "pos-deletes"))
                    .setAll(table.properties())
                    .metricsConfig(MetricsConfig.forPositionDelete())
                    .withSpec(table.spec())
                    .withPartition(partition)
                    .overwrite()
                    .buildPositionWriter();
            PositionDelete<Record> delete = PositionDelete.create();
            try (writer) {
                for (long position : positions) {
                    writer.write(delete.set(dataFile.location(), position));
                }
            }
            return writer.toDeleteFile();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An equality delete file in {@code partition} deleting every row equal to one of {@code keys} on the
     * columns of {@code keySchema}.
     */
    DeleteFile equalityDeletes(StructLike partition, Schema keySchema, List<Record> keys) {
        int[] fieldIds =
                keySchema.columns().stream().mapToInt(field -> field.fieldId()).toArray();
        try {
            EqualityDeleteWriter<Record> writer = Parquet.writeDeletes(newFile(partition, "eq-deletes"))
                    .forTable(table)
                    .withPartition(partition)
                    .rowSchema(keySchema)
                    .equalityFieldIds(fieldIds)
                    .createWriterFunc(GenericParquetWriter::create)
                    .overwrite()
                    .buildEqualityWriter();
            try (writer) {
                writer.write(keys);
            }
            return writer.toDeleteFile();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private OutputFile newFile(StructLike partition, String kind) {
        String name =
                kind + "-" + UUID.randomUUID() + "." + FileFormat.PARQUET.name().toLowerCase();
        return table.io().newOutputFile(table.locationProvider().newDataLocation(table.spec(), partition, name));
    }
}
