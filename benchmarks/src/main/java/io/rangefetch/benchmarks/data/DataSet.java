package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The objects the workloads read: one wide Parquet file, a set of small Parquet files, a few Parquet files shaped
 * like TPC-H's lineitem (dictionary pages, page indexes), one text object, the same kind of text under three keys a
 * format policy may claim ({@code .parquet}, {@code .orc}, none) and an Iceberg table.
 * Keys carry the data set's name and scale, so data sets of several scales live side by side in one bucket.
 */
public record DataSet(
        ParquetSpec wide,
        List<ParquetSpec> smallFiles,
        List<FilteredParquetSpec> filtered,
        TextSpec text,
        List<TextSpec> strided,
        IcebergTableSpec table) {

    static final long MB = 1_000_000; // decimal, as the reports print sizes

    public DataSet {
        requireNonNull(wide, "wide is null");
        smallFiles = List.copyOf(requireNonNull(smallFiles, "smallFiles is null"));
        filtered = List.copyOf(requireNonNull(filtered, "filtered is null"));
        requireNonNull(text, "text is null");
        strided = List.copyOf(requireNonNull(strided, "strided is null"));
        requireNonNull(table, "table is null");
    }

    /**
     * The scenario runner's data at {@code scale} (1 for the full sizes): a 128 MB file with 16 columns in 4
     * row groups, 40 files of 2 MB, 4 lineitem-like files of 24 MB in 6 row groups, a 256 MB text object, three
     * 16 MB text objects whose keys say Parquet, ORC and nothing, and an Iceberg table of 64 data files of 8 MB in 8
     * partitions, 3 row groups each.
     */
    public static DataSet benchmark(double scale) {
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("scale must be in (0, 1]: " + scale);
        }
        String prefix =
                "bench/scale-" + BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
        List<FilteredParquetSpec> filtered = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            filtered.add(FilteredParquetSpec.ofSize(
                    String.format("%s/lineitem/part-%d.parquet", prefix, i), scaled(24 * MB, scale), 6, 200 + i));
        }
        return create(
                prefix,
                scaled(128 * MB, scale),
                40,
                scaled(2 * MB, scale),
                filtered,
                scaled(256 * MB, scale),
                scaled(8 * MB, scale));
    }

    /** The demo's smaller data: a 64 MB file, 8 files of 2 MB; its text object and table are not read. */
    public static DataSet demo() {
        return create("demo", 64 * MB, 8, 2 * MB, List.of(), MB, MB);
    }

    private static DataSet create(
            String prefix,
            long wideBytes,
            int files,
            long fileBytes,
            List<FilteredParquetSpec> filtered,
            long textBytes,
            long tableFileBytes) {
        ParquetSpec wide = ParquetSpec.ofSize(prefix + "/wide.parquet", wideBytes, 4, 1);
        List<ParquetSpec> small = new ArrayList<>(files);
        for (int i = 0; i < files; i++) {
            small.add(
                    ParquetSpec.ofSize(String.format("%s/small/part-%03d.parquet", prefix, i), fileBytes, 1, 100 + i));
        }
        List<TextSpec> strided = List.of(
                new TextSpec(prefix + "/strided/lines.parquet", textBytes / 16, 11),
                new TextSpec(prefix + "/strided/lines.orc", textBytes / 16, 12),
                new TextSpec(prefix + "/strided/lines", textBytes / 16, 13));
        return new DataSet(
                wide,
                small,
                filtered,
                new TextSpec(prefix + "/lines.txt", textBytes, 7),
                strided,
                new IcebergTableSpec(prefix + "/iceberg-table", 64, tableFileBytes, 8, 3));
    }

    private static long scaled(long bytes, double scale) {
        return Math.max(64 * 1024, Math.round(bytes * scale));
    }
}
