package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The objects the workloads read: one wide Parquet file, a set of small Parquet files and one text object.
 * Keys carry the data set's name and scale, so data sets of several scales live side by side in one bucket.
 */
public record DataSet(ParquetSpec wide, List<ParquetSpec> smallFiles, TextSpec text) {

    static final long MB = 1_000_000; // decimal, as the reports print sizes

    public DataSet {
        requireNonNull(wide, "wide is null");
        smallFiles = List.copyOf(requireNonNull(smallFiles, "smallFiles is null"));
        requireNonNull(text, "text is null");
    }

    /**
     * The scenario runner's data at {@code scale} (1 for the full sizes): a 128 MB file with 16 columns in 4
     * row groups, 40 files of 2 MB and a 256 MB text object.
     */
    public static DataSet benchmark(double scale) {
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("scale must be in (0, 1]: " + scale);
        }
        String prefix = "bench/scale-" + BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
        return create(prefix, scaled(128 * MB, scale), 40, scaled(2 * MB, scale), scaled(256 * MB, scale));
    }

    /** The demo's smaller data: a 64 MB file, 8 files of 2 MB; its text object is not read. */
    public static DataSet demo() {
        return create("demo", 64 * MB, 8, 2 * MB, MB);
    }

    private static DataSet create(String prefix, long wideBytes, int files, long fileBytes, long textBytes) {
        ParquetSpec wide = ParquetSpec.ofSize(prefix + "/wide.parquet", wideBytes, 4, 1);
        List<ParquetSpec> small = new ArrayList<>(files);
        for (int i = 0; i < files; i++) {
            small.add(ParquetSpec.ofSize(String.format("%s/small/part-%03d.parquet", prefix, i), fileBytes, 1,
                    100 + i));
        }
        return new DataSet(wide, small, new TextSpec(prefix + "/lines.txt", textBytes, 7));
    }

    private static long scaled(long bytes, double scale) {
        return Math.max(64 * 1024, Math.round(bytes * scale));
    }
}
