package io.rangefetch.parquet;

import io.rangefetch.OpenOptions;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;

/** Parquet files written by parquet-java for the tests: uncompressed, row groups of a given row count. */
final class ParquetTestFiles {
    private ParquetTestFiles() {}

    /** Writes {@code rows} rows of {@code schema}, row {@code i} made by {@code row(groups, i)}, to {@code path}. */
    static void write(
            Path path,
            MessageType schema,
            int rows,
            int rowsPerGroup,
            BiFunction<SimpleGroupFactory, Integer, Group> row)
            throws IOException {
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(path))
                .withConf(new PlainParquetConfiguration())
                .withType(schema)
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
                .withRowGroupRowCountLimit(rowsPerGroup)
                .build()) {
            SimpleGroupFactory groups = new SimpleGroupFactory(schema);
            for (int i = 0; i < rows; i++) {
                writer.write(row.apply(groups, i));
            }
        }
    }

    /** Where {@code column}'s chunks lie in {@code file}, one per row group, in order. */
    static List<ByteRange> chunks(Path file, String column) throws IOException {
        List<ByteRange> chunks = new ArrayList<>();
        try (ParquetFileReader peek = ParquetFileReader.open(
                new LocalInputFile(file),
                ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
            for (BlockMetaData rowGroup : peek.getRowGroups()) {
                for (ColumnChunkMetaData chunk : rowGroup.getColumns()) {
                    if (chunk.getPath().toDotString().equals(column)) {
                        chunks.add(ByteRange.ofLength(chunk.getStartingPos(), chunk.getTotalSize()));
                    }
                }
            }
        }
        return chunks;
    }

    /**
     * Reads every row group that {@code options} leave of the fixture bucket's {@code key} (a copy of {@code local})
     * through Rangefetch, as parquet-java reads them, projecting {@code projection} if not {@code null}; returns the
     * rows read.
     */
    static long readRowGroups(
            StreamFactory factory, Path local, String key, ParquetReadOptions options, MessageType projection)
            throws IOException {
        long rows = 0;
        try (ParquetFileReader reader = ParquetFileReader.open(
                new S3ParquetInputFile(
                        factory,
                        new S3Location(StreamFixture.BUCKET, key),
                        OpenOptions.builder().length(Files.size(local)).build()),
                options)) {
            if (projection != null) {
                reader.setRequestedSchema(projection);
            }
            for (PageReadStore rowGroup = reader.readNextRowGroup();
                    rowGroup != null;
                    rowGroup = reader.readNextRowGroup()) {
                rows += rowGroup.getRowCount();
            }
        }
        return rows;
    }
}
