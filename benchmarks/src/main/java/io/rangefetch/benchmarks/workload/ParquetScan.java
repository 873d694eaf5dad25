package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.GeneratedValues;
import io.rangefetch.benchmarks.data.ParquetSpec;
import java.io.IOException;
import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;

/**
 * Reads columns of a generated Parquet file the way an engine's scan does: {@link ParquetFileReader} with
 * a requested schema, every row group, every page decoded, with parquet-java's own I/O path (its vectored
 * reads at their default) doing the fetching. Every decoded value is checked against {@link
 * GeneratedValues}.
 *
 * <p>Values are pulled straight from column readers rather than assembled into records: the I/O is the
 * same and the decoding is a small, fixed cost, so reader differences are not drowned in record assembly.
 */
final class ParquetScan {

    static final GroupConverter IGNORING_CONVERTER = new IgnoringConverter();

    private ParquetScan() {}

    /**
     * Reads {@code columns} (all when empty) of {@code file}, written with {@code spec}.
     *
     * @return the bytes the scan needed: the footer (from its start to the file's end) plus the requested
     *     column chunks
     */
    static long scan(InputFile file, ParquetSpec spec, List<String> columns) throws IOException {
        requireNonNull(file, "file is null");
        requireNonNull(spec, "spec is null");
        requireNonNull(columns, "columns is null");
        try (ParquetFileReader reader = ParquetFileReader.open(file)) {
            MessageType schema = reader.getFileMetaData().getSchema();
            MessageType requested = columns.isEmpty()
                    ? schema
                    : new MessageType(
                            schema.getName(),
                            columns.stream().map(schema::getType).toList());
            reader.setRequestedSchema(requested);
            String createdBy = reader.getFileMetaData().getCreatedBy();
            long firstRow = 0;
            for (PageReadStore rowGroup = reader.readNextRowGroup();
                    rowGroup != null;
                    rowGroup = reader.readNextRowGroup()) {
                ColumnReadStoreImpl store = new ColumnReadStoreImpl(rowGroup, IGNORING_CONVERTER, requested, createdBy);
                for (ColumnDescriptor column : requested.getColumns()) {
                    verify(store.getColumnReader(column), spec, column.getPath()[0], firstRow, rowGroup.getRowCount());
                }
                firstRow += rowGroup.getRowCount();
            }
            if (firstRow != spec.rows()) {
                throw new WrongBytesException(spec.key() + ": " + firstRow + " rows, expected " + spec.rows());
            }
            return neededBytes(reader, requested, file.getLength());
        }
    }

    /** Every column is required and flat: one value per row. */
    private static void verify(ColumnReader values, ParquetSpec spec, String name, long firstRow, long count)
            throws WrongBytesException {
        int column = ParquetSpec.columnIndex(name);
        boolean int64 = ParquetSpec.isInt64(column);
        for (long i = 0; i < count; i++) {
            long row = firstRow + i;
            boolean right = int64
                    ? values.getLong() == GeneratedValues.int64(spec.seed(), column, row)
                    : values.getDouble() == GeneratedValues.float64(spec.seed(), column, row);
            if (!right) {
                throw new WrongBytesException(spec.key() + ": wrong value in column " + name + " at row " + row);
            }
            values.consume();
        }
    }

    private static long neededBytes(ParquetFileReader reader, MessageType requested, long fileLength) {
        // Page indexes sit between the last chunk and the footer; the footer starts after whichever ends last.
        long footerStart = 0;
        long chunkBytes = 0;
        for (BlockMetaData block : reader.getFooter().getBlocks()) {
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                footerStart = Math.max(footerStart, chunk.getStartingPos() + chunk.getTotalSize());
                footerStart = Math.max(footerStart, end(chunk.getColumnIndexReference()));
                footerStart = Math.max(footerStart, end(chunk.getOffsetIndexReference()));
                if (requested.containsPath(chunk.getPath().toArray())) {
                    chunkBytes += chunk.getTotalSize();
                }
            }
        }
        return fileLength - footerStart + chunkBytes;
    }

    /** Where a page index ends; 0 for none. */
    static long end(IndexReference index) {
        return index == null ? 0 : index.getOffset() + index.getLength();
    }

    /** The record converter column readers need to exist; values are read from the readers directly. */
    private static final class IgnoringConverter extends GroupConverter {
        private static final PrimitiveConverter IGNORED = new PrimitiveConverter() {};

        @Override
        public Converter getConverter(int fieldIndex) {
            return IGNORED;
        }

        @Override
        public void start() {}

        @Override
        public void end() {}
    }
}
