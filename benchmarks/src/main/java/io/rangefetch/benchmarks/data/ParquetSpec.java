package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * A Parquet file of {@value #COLUMNS} required columns (even ones INT64, odd ones DOUBLE) holding
 * {@link GeneratedValues} for {@code seed}, in {@code rowGroups} row groups of equal row counts.
 *
 * <p>Written so its size is predictable and every byte must be fetched: plain encoding, no dictionary, no
 * compression, so a row costs {@value #BYTES_PER_ROW} bytes plus page headers and the footer; random values
 * leave nothing to compress anyway. Row groups are cut by row count, not by parquet-java's memory estimate,
 * so a file always has exactly the row groups asked for.
 */
public record ParquetSpec(String key, long rows, int rowGroups, long seed) implements GeneratedObject {

    public static final int COLUMNS = 16;
    public static final int BYTES_PER_ROW = COLUMNS * Long.BYTES;
    public static final MessageType SCHEMA = schema();

    public ParquetSpec {
        requireNonNull(key, "key is null");
        if (rowGroups <= 0 || rows < rowGroups) {
            throw new IllegalArgumentException(
                    "need at least one row per row group: " + rows + " rows, " + rowGroups + " row groups");
        }
    }

    /** A file of about {@code bytes} bytes. */
    public static ParquetSpec ofSize(String key, long bytes, int rowGroups, long seed) {
        return new ParquetSpec(key, Math.max(rowGroups, bytes / BYTES_PER_ROW), rowGroups, seed);
    }

    /** The name of column {@code index}: {@code c00} to {@code c15}. */
    public static String columnName(int index) {
        return String.format("c%02d", index);
    }

    /** The index of the column named {@code name}. */
    public static int columnIndex(String name) {
        return Integer.parseInt(name.substring(1));
    }

    public static boolean isInt64(int column) {
        return column % 2 == 0;
    }

    @Override
    public String marker() {
        return "parquet-v1 rows=" + rows + " rowGroups=" + rowGroups + " seed=" + seed + " columns=" + COLUMNS
                + " plain uncompressed";
    }

    @Override
    public long approximateSize() {
        return rows * BYTES_PER_ROW;
    }

    @Override
    public void writeTo(Path file, LongConsumer progress) throws IOException {
        GeneratedParquet.write(file, SCHEMA, rows, rowGroups, false, BYTES_PER_ROW, this::row, progress);
    }

    private Group row(long row) {
        Group group = new SimpleGroup(SCHEMA);
        for (int column = 0; column < COLUMNS; column++) {
            if (isInt64(column)) {
                group.add(column, GeneratedValues.int64(seed, column, row));
            } else {
                group.add(column, GeneratedValues.float64(seed, column, row));
            }
        }
        return group;
    }

    private static MessageType schema() {
        List<Type> fields = new ArrayList<>(COLUMNS);
        for (int column = 0; column < COLUMNS; column++) {
            PrimitiveTypeName type = isInt64(column) ? PrimitiveTypeName.INT64 : PrimitiveTypeName.DOUBLE;
            fields.add(Types.required(type).named(columnName(column)));
        }
        return new MessageType("bench", fields);
    }
}
