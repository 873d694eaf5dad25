package io.rangefetch.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The Parquet file the S3A tests read through {@code s3a://} with parquet-java: 150,000 rows of an id, a name and a
 * score in small row groups, read with a projection of id and score, so each row group is two column chunks with
 * the name chunk between them (a vectored read of two ranges with a gap).
 */
final class ParquetRows {
    static final int ROWS = 150_000;
    private static final int KIB = 1024;
    private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
            "message row { required int64 id; required binary name (UTF8); required double score; }");
    private static final String PROJECTION = "message row { required int64 id; required double score; }";

    private ParquetRows() {}

    /** Writes the file at {@code path} (over 4 MiB) and returns the path. */
    static Path write(Path path) throws IOException {
        SimpleGroupFactory rows = new SimpleGroupFactory(SCHEMA);
        // small row groups, so the projection reads several row groups of two chunks with a gap between them
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(path))
                .withType(SCHEMA)
                .withRowGroupSize(256L * KIB)
                .withPageSize(32 * KIB)
                .build()) {
            for (int i = 0; i < ROWS; i++) {
                writer.write(rows.newGroup()
                        .append("id", (long) i)
                        .append("name", "row-" + i + "-" + Long.toHexString(i * 0x9E3779B97F4A7C15L))
                        .append("score", i * 0.5 - 17.25));
            }
        }
        assertThat(Files.size(path)).isGreaterThan(4096L * KIB);
        return path;
    }

    /** The projected rows of {@code file} as strings, read by parquet-java with {@code conf}. */
    static List<String> readProjected(InputFile file, Configuration conf) throws IOException {
        conf.set(ReadSupport.PARQUET_READ_SCHEMA, PROJECTION);
        List<String> rows = new ArrayList<>();
        try (ParquetReader<Group> reader =
                new GroupReaderBuilder(file).withConf(conf).build()) {
            for (Group row = reader.read(); row != null; row = reader.read()) {
                rows.add(row.toString());
            }
        }
        return rows;
    }

    /** The length of the footer of the Parquet file at {@code parquet}, as its trailer gives it. */
    static int footerLength(Path parquet) throws IOException {
        byte[] bytes = Files.readAllBytes(parquet);
        return ByteBuffer.wrap(bytes, bytes.length - 8, 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .getInt();
    }

    /** parquet-java's reader of example {@link Group}s over any {@link InputFile}. */
    private static final class GroupReaderBuilder extends ParquetReader.Builder<Group> {
        GroupReaderBuilder(InputFile file) {
            super(file);
        }

        @Override
        protected ReadSupport<Group> getReadSupport() {
            return new GroupReadSupport();
        }
    }
}
