package io.rangefetch.it;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * A Parquet file for a test to write with real parquet-java: its schema, its rows and the writer settings that
 * give it its layout (row groups, pages, encodings, indexes). A row is a pure function of its number, so what a
 * reader returns is checked against {@link #row(int)} without keeping what was written.
 *
 * <p>Every file is uncompressed: uncompressed chunks keep the sizes a test reasons about close to the values
 * written.
 *
 * @param name the file name, locally and in the bucket
 * @param rowCount how many rows the file holds
 * @param maker builds row {@code n}
 * @param settings the writer settings beyond the schema and the codec
 */
record ParquetShape(
        String name,
        MessageType schema,
        int rowCount,
        RowMaker maker,
        UnaryOperator<ExampleParquetWriter.Builder> settings) {
    private static final int ROWS = 20_000;
    private static final int ROWS_PER_PAGE = 1_000;
    private static final MessageType FLAT = MessageTypeParser.parseMessageType(
            "message flat { required int64 id; required double score; required binary name (UTF8); }");
    private static final MessageType NESTED = MessageTypeParser.parseMessageType("message nested {"
            + " required int64 id;"
            + " optional group address { optional binary city (UTF8); optional int32 zip; }"
            + " repeated int32 scores;"
            + " optional group tags (LIST) { repeated group list { optional binary element (UTF8); } } }");
    private static final MessageType COUNTRIES = MessageTypeParser.parseMessageType(
            "message countries { required int64 id; required binary country (UTF8); }");
    /** The strings of a {@link #dictionary} file's dictionary-encoded column. */
    static final List<String> COUNTRY_NAMES =
            List.of("Austria", "Brazil", "Chile", "Denmark", "Egypt", "France", "Ghana");

    /** Builds one row of a file. */
    @FunctionalInterface
    interface RowMaker {
        Group make(SimpleGroupFactory groups, int row);
    }

    ParquetShape {
        requireNonNull(name, "name is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(maker, "maker is null");
        requireNonNull(settings, "settings is null");
    }

    /** int64, double and UTF8 columns, in {@code rowGroups} row groups of pages of 1,000 rows. */
    static ParquetShape flat(int rowGroups) {
        return new ParquetShape(
                "flat-" + rowGroups + "rg.parquet", FLAT, ROWS, ParquetShape::flatRow, inRowGroups(rowGroups));
    }

    /**
     * {@link #flat} without statistics: parquet-java 1.18.1 has no switch for page indexes, and a column index
     * is only written from page statistics, so this file has none (it still has its offset indexes).
     */
    static ParquetShape flatWithoutColumnIndex(int rowGroups) {
        return new ParquetShape(
                "flat-no-column-index-" + rowGroups + "rg.parquet",
                FLAT,
                ROWS,
                ParquetShape::flatRow,
                builder -> inRowGroups(rowGroups).apply(builder).withStatisticsEnabled(false));
    }

    /** An optional group of optional fields, a repeated int32 and a LIST of optional strings. */
    static ParquetShape nested(int rowGroups) {
        return new ParquetShape(
                "nested-" + rowGroups + "rg.parquet", NESTED, ROWS, ParquetShape::nestedRow, inRowGroups(rowGroups));
    }

    /** A column of seven distinct strings, dictionary-encoded. */
    static ParquetShape dictionary(int rowGroups) {
        return new ParquetShape(
                "dictionary-" + rowGroups + "rg.parquet",
                COUNTRIES,
                ROWS,
                (groups, row) -> groups.newGroup()
                        .append("id", (long) row)
                        .append("country", COUNTRY_NAMES.get(row % COUNTRY_NAMES.size())),
                builder -> inRowGroups(rowGroups).apply(builder).withDictionaryEncoding(true));
    }

    /**
     * {@code columns} int64 columns {@code c000...} of values that do not compress, plain-encoded, in
     * {@code rowGroups} row groups of {@code rowsPerGroup} rows and pages of at most {@code rowsPerPage} rows: a
     * column chunk is about {@code 8 × rowsPerGroup} bytes.
     */
    static ParquetShape wide(String name, int columns, int rowGroups, int rowsPerGroup, int rowsPerPage) {
        return new ParquetShape(
                name,
                wideSchema(IntStream.range(0, columns).toArray()),
                rowGroups * rowsPerGroup,
                ParquetShape::wideRow,
                writer -> writer.withRowGroupRowCountLimit(rowsPerGroup)
                        .withPageRowCountLimit(rowsPerPage)
                        .withDictionaryEncoding(false));
    }

    /** A {@link #wide} file's schema, or the projection of one, with the columns numbered {@code columns}. */
    static MessageType wideSchema(int... columns) {
        Types.MessageTypeBuilder builder = Types.buildMessage();
        for (int column : columns) {
            builder.required(PrimitiveTypeName.INT64).named(String.format("c%03d", column));
        }
        return builder.named("wide");
    }

    /** A {@link #wide} row holds the columns its group's schema names: all of them, or a projection's. */
    private static Group wideRow(SimpleGroupFactory groups, int row) {
        Group group = groups.newGroup();
        List<Type> fields = group.getType().getFields();
        for (int field = 0; field < fields.size(); field++) {
            group.add(
                    field,
                    wideValue(row, Integer.parseInt(fields.get(field).getName().substring(1))));
        }
        return group;
    }

    /** The value of a {@link #wide} file's cell: a mix of its coordinates (SplitMix64's finalizer). */
    private static long wideValue(int row, int column) {
        long z = (row * 1_000_003L + column) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Writes the file into {@code directory} with parquet-java; returns its path. */
    Path write(Path directory) throws IOException {
        Path path = directory.resolve(name);
        ExampleParquetWriter.Builder builder = ExampleParquetWriter.builder(new LocalOutputFile(path))
                .withConf(new PlainParquetConfiguration())
                .withType(schema)
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .withCompressionCodec(CompressionCodecName.UNCOMPRESSED);
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> writer = settings.apply(builder).build()) {
            for (int row = 0; row < rowCount; row++) {
                writer.write(maker.make(groups, row));
            }
        }
        return path;
    }

    /** Row {@code row} as written. */
    Group row(int row) {
        return row(row, schema);
    }

    /**
     * Row {@code row} as a reader asking for {@code projection} reads it; only a {@link #wide} file's rows can be
     * projected.
     */
    Group row(int row, MessageType projection) {
        return maker.make(new SimpleGroupFactory(projection), row);
    }

    @Override
    public String toString() {
        return name;
    }

    private static UnaryOperator<ExampleParquetWriter.Builder> inRowGroups(int rowGroups) {
        return builder -> builder.withRowGroupRowCountLimit(ROWS / rowGroups).withPageRowCountLimit(ROWS_PER_PAGE);
    }

    private static Group flatRow(SimpleGroupFactory groups, int row) {
        return groups.newGroup()
                .append("id", (long) row)
                .append("score", row * 0.25)
                .append("name", "name-" + Integer.toHexString(row * 7919));
    }

    /** Every optional and repeated case over the rows: absent, empty, null elements, one and several values. */
    private static Group nestedRow(SimpleGroupFactory groups, int row) {
        Group group = groups.newGroup().append("id", (long) row);
        if (row % 3 != 0) {
            Group address = group.addGroup("address");
            if (row % 2 == 0) {
                address.append("city", "city-" + row % 13);
            }
            if (row % 5 != 0) {
                address.append("zip", 10_000 + row % 900);
            }
        }
        for (int i = 0; i < row % 4; i++) {
            group.append("scores", row + i);
        }
        if (row % 7 != 0) {
            Group tags = group.addGroup("tags");
            for (int i = 0; i < row % 3; i++) {
                Group element = tags.addGroup("list");
                if ((row + i) % 4 != 0) {
                    element.append("element", "tag-" + (row + i) % 11);
                }
            }
        }
        return group;
    }
}
