package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * The iceberg-scan workload's table, as a pure function of its parameters: a format-v2 table partitioned by
 * identity on {@code part}, {@code files} Parquet data files of about {@code fileBytes} each, file {@code f} in
 * partition {@code f % partitions}; every fourth file (from the second) has a position delete file removing
 * every {@value #DELETE_EVERY}th row. Every value is derived from (file, row, column), so the query's
 * expected answer is computed here without reading anything, and the table is rebuilt identically.
 *
 * <p>The values are hashed, hence incompressible and unique: Parquet stores them plain (8 bytes a value), which
 * makes a file's size predictable from its row count.
 *
 * @param prefix the key prefix the table lives under (its location is {@code s3://bucket/prefix})
 * @param rowGroups row groups per data file, about
 */
public record IcebergTableSpec(String prefix, int files, long fileBytes, int partitions, int rowGroups) {

    /** Columns in the table: {@code id}, {@code part} and ten value columns {@code c02}…{@code c11}. */
    public static final int COLUMNS = 12;
    /** The three columns the query selects, none adjacent to another. */
    public static final List<String> SELECTED = List.of("c03", "c07", "c10");
    /** A file with deletes loses the rows whose index is {@value #DELETE_OFFSET} modulo this. */
    public static final int DELETE_EVERY = 50;

    static final int DELETE_OFFSET = 7;
    /** Bumped whenever the generated table changes, so a stored table of an older generator is rebuilt. */
    static final int VERSION = 1;
    // id and ten value columns plain as 8-byte longs, part as a 4-byte int (a single-value dictionary in fact)
    private static final int BYTES_PER_ROW = 11 * Long.BYTES;

    public IcebergTableSpec {
        requireNonNull(prefix, "prefix is null");
        if (files < 1 || fileBytes < 1 || partitions < 2 || partitions % 2 != 0 || rowGroups < 1) {
            throw new IllegalArgumentException(String.format(
                    "need files >= 1, fileBytes >= 1, an even partitions >= 2, rowGroups >= 1: %d, %d, %d, %d",
                    files, fileBytes, partitions, rowGroups));
        }
    }

    /** The table's schema: required longs but for the int partition column. */
    public static Schema schema() {
        List<Types.NestedField> fields = new ArrayList<>();
        fields.add(Types.NestedField.required(1, "id", Types.LongType.get()));
        fields.add(Types.NestedField.required(2, "part", Types.IntegerType.get()));
        for (int column = 2; column < COLUMNS; column++) {
            fields.add(Types.NestedField.required(column + 1, columnName(column), Types.LongType.get()));
        }
        return new Schema(fields);
    }

    public static PartitionSpec partitionSpec() {
        return PartitionSpec.builderFor(schema()).identity("part").build();
    }

    /** {@code c02} for column 2: the value columns' names. */
    public static String columnName(int column) {
        return String.format("c%02d", column);
    }

    /** The query's filter: the lower half of the partitions. */
    public Expression filter() {
        return Expressions.lessThan("part", partitions / 2);
    }

    /** What the preparer records with the table; a stored table with another marker is rebuilt. */
    public String marker() {
        return String.format(
                "iceberg-v%d:files=%d:bytes=%d:partitions=%d:rowGroups=%d",
                VERSION, files, fileBytes, partitions, rowGroups);
    }

    public int rowsPerFile() {
        return (int) Math.max(DELETE_EVERY, fileBytes / BYTES_PER_ROW);
    }

    /** The Parquet row group size that gives about {@link #rowGroups()} per file. */
    public long rowGroupBytes() {
        return Math.max(1, fileBytes / rowGroups + 1);
    }

    public int partitionOf(int file) {
        return file % partitions;
    }

    public boolean hasDeletes(int file) {
        return file % 4 == 1;
    }

    public boolean deleted(int file, long row) {
        return hasDeletes(file) && row % DELETE_EVERY == DELETE_OFFSET;
    }

    /** The value of {@code column} (0 = id, 1 = part, 2… value columns) in {@code row} of {@code file}. */
    public long value(int file, long row, int column) {
        if (column == 0) {
            return (long) file * rowsPerFile() + row;
        }
        if (column == 1) {
            return partitionOf(file);
        }
        return mix(mix(mix(file + 0x9E3779B97F4A7C15L) + row) + column);
    }

    /** What the query must return: its row count and the checksum of its selected values. */
    public Answer expected() {
        int[] columns = SELECTED.stream()
                .mapToInt(name -> Integer.parseInt(name.substring(1)))
                .toArray();
        long rows = 0;
        long checksum = 0;
        for (int file = 0; file < files; file++) {
            if (partitionOf(file) >= partitions / 2) {
                continue;
            }
            for (long row = 0; row < rowsPerFile(); row++) {
                if (!deleted(file, row)) {
                    rows++;
                    checksum += Answer.rowHash(
                            value(file, row, columns[0]), value(file, row, columns[1]), value(file, row, columns[2]));
                }
            }
        }
        return new Answer(rows, checksum);
    }

    /**
     * A query's result reduced to its row count and the sum of a hash of each row's selected values (wrapping):
     * the same whatever order the rows come in.
     */
    public record Answer(long rows, long checksum) {

        public static long rowHash(long first, long second, long third) {
            return mix(mix(mix(first) + second) + third);
        }

        public Answer plus(long first, long second, long third) {
            return new Answer(rows + 1, checksum + rowHash(first, second, third));
        }
    }

    // SplitMix64's finalizer: a cheap bijection that spreads every input bit
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
