package io.rangefetch.benchmarks.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Writes the generated Parquet files: uncompressed, Parquet 1.0 pages, row groups cut by row count (never by
 * parquet-java's memory estimate), so a file always has exactly the row groups asked for.
 */
final class GeneratedParquet {
    private static final int PROGRESS_EVERY_ROWS = 8192;
    // far above any file here, yet small enough that the writer's size arithmetic cannot overflow
    private static final long ROW_GROUP_BYTES_NEVER_REACHED = 1L << 40;

    private GeneratedParquet() {}

    /**
     * Writes {@code rows} rows of {@code schema} to {@code file} in {@code rowGroups} row groups, row {@code i}
     * made by {@code row}; reports about {@code bytesPerRow} bytes written per row.
     */
    static void write(
            Path file,
            MessageType schema,
            long rows,
            int rowGroups,
            boolean dictionary,
            long bytesPerRow,
            LongFunction<Group> row,
            LongConsumer progress)
            throws IOException {
        long rowsPerGroup = (rows + rowGroups - 1) / rowGroups;
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file))
                .withConf(new PlainParquetConfiguration())
                .withType(schema)
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .withWriterVersion(WriterVersion.PARQUET_1_0)
                .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
                .withDictionaryEncoding(dictionary)
                .withRowGroupRowCountLimit(Math.toIntExact(rowsPerGroup))
                .withRowGroupSize(ROW_GROUP_BYTES_NEVER_REACHED)
                .build()) {
            for (long i = 0; i < rows; i++) {
                writer.write(row.apply(i));
                if ((i + 1) % PROGRESS_EVERY_ROWS == 0) {
                    progress.accept(PROGRESS_EVERY_ROWS * bytesPerRow);
                }
            }
        }
        progress.accept(rows % PROGRESS_EVERY_ROWS * bytesPerRow);
    }
}
