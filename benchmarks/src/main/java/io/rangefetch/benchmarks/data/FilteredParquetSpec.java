package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * A Parquet file shaped like TPC-H's {@code lineitem}, for the reads an engine makes with a filter: ten required
 * columns, most of them few-valued and so dictionary-encoded (a dictionary page opens each of their chunks), two
 * of them unique and plain, one long text column; page indexes as parquet-java writes them; {@code rowGroups} row
 * groups of equal row counts. Every value is a pure function of (seed, column, row) ({@link #value}).
 */
public record FilteredParquetSpec(String key, long rows, int rowGroups, long seed) implements GeneratedObject {

    /** The columns, in file order. */
    public static final List<String> COLUMNS =
            List.of("orderkey", "quantity", "price", "discount", "flag", "status", "day", "mode", "comment", "partkey");
    /** The first day of {@code day}; its values run over {@value #DAYS} days from there. */
    public static final int FIRST_DAY = 8_036;

    public static final int DAYS = 2_526;
    public static final MessageType SCHEMA = schema();

    private static final List<String> FLAGS = List.of("A", "N", "R");
    private static final List<String> STATUSES = List.of("F", "O");
    private static final List<String> MODES = List.of("AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK");
    private static final long BYTES_PER_ROW = 75; // about: see the column comments in value()

    public FilteredParquetSpec {
        requireNonNull(key, "key is null");
        if (rowGroups <= 0 || rows < rowGroups) {
            throw new IllegalArgumentException(
                    "need at least one row per row group: " + rows + " rows, " + rowGroups + " row groups");
        }
    }

    /** A file of about {@code bytes} bytes. */
    public static FilteredParquetSpec ofSize(String key, long bytes, int rowGroups, long seed) {
        return new FilteredParquetSpec(key, Math.max(rowGroups, bytes / BYTES_PER_ROW), rowGroups, seed);
    }

    /**
     * The value of {@code column} at {@code row}: a {@code Long}, {@code Double}, {@code Integer} or {@code String},
     * as the column's type is INT64, DOUBLE, INT32 or a UTF-8 BINARY.
     */
    public Object value(String column, long row) {
        int index = COLUMNS.indexOf(column);
        long mixed = GeneratedValues.int64(seed, index, row);
        return switch (column) {
            case "orderkey" -> row; // unique: plain, 8 bytes
            case "quantity" -> 1 + Math.floorMod(mixed, 50L); // a dictionary of 50
            case "price" -> GeneratedValues.float64(seed, index, row); // unique: plain, 8 bytes
            case "discount" -> Math.floorMod(mixed, 11L) / 100.0; // a dictionary of 11
            case "flag" -> FLAGS.get((int) Math.floorMod(mixed, FLAGS.size()));
            case "status" -> STATUSES.get((int) Math.floorMod(mixed, STATUSES.size()));
            case "day" -> FIRST_DAY + (int) Math.floorMod(mixed, DAYS); // a dictionary of 2,526
            case "mode" -> MODES.get((int) Math.floorMod(mixed, MODES.size()));
            case "comment" -> "comment " + Long.toHexString(mixed) + " of the final deposits"; // about 45 bytes
            case "partkey" -> Math.floorMod(mixed, 200_000L); // too many values for a dictionary page: plain
            default -> throw new IllegalArgumentException("no column " + column);
        };
    }

    @Override
    public String marker() {
        return "filtered-parquet-v1 rows=" + rows + " rowGroups=" + rowGroups + " seed=" + seed + " columns="
                + COLUMNS.size() + " dictionary uncompressed";
    }

    @Override
    public long approximateSize() {
        return rows * BYTES_PER_ROW;
    }

    @Override
    public void writeTo(Path file, LongConsumer progress) throws IOException {
        GeneratedParquet.write(file, SCHEMA, rows, rowGroups, true, BYTES_PER_ROW, this::row, progress);
    }

    private Group row(long row) {
        Group group = new SimpleGroup(SCHEMA);
        for (String column : COLUMNS) {
            Object value = value(column, row);
            if (value instanceof Long number) {
                group.add(column, number);
            } else if (value instanceof Double number) {
                group.add(column, number);
            } else if (value instanceof Integer number) {
                group.add(column, number);
            } else {
                group.add(column, (String) value);
            }
        }
        return group;
    }

    private static MessageType schema() {
        return Types.buildMessage()
                .required(PrimitiveTypeName.INT64)
                .named("orderkey")
                .required(PrimitiveTypeName.INT64)
                .named("quantity")
                .required(PrimitiveTypeName.DOUBLE)
                .named("price")
                .required(PrimitiveTypeName.DOUBLE)
                .named("discount")
                .required(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("flag")
                .required(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("status")
                .required(PrimitiveTypeName.INT32)
                .as(LogicalTypeAnnotation.dateType())
                .named("day")
                .required(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("mode")
                .required(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("comment")
                .required(PrimitiveTypeName.INT64)
                .named("partkey")
                .named("lineitem");
    }
}
