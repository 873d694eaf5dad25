package io.rangefetch.benchmarks.data;

/**
 * The values of every generated Parquet file, as a pure function of (seed, column, row): a workload checks
 * each value it decodes against this function instead of holding the data it expects.
 *
 * <p>The mixing is SplitMix64's finaliser (Steele, Lea, Flood: "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): every input bit flips about half the output bits, so neighbouring rows and
 * columns get unrelated values and no encoding can compress them.
 */
public final class GeneratedValues {

    private GeneratedValues() {}

    /** The value of an INT64 column. */
    public static long int64(long seed, int column, long row) {
        return mix(seed * 0x9E3779B97F4A7C15L + column * 0xC2B2AE3D27D4EB4FL + row);
    }

    /** The value of a DOUBLE column: uniform in [0, 1), never NaN, so equality checks are exact. */
    public static double float64(long seed, int column, long row) {
        return (int64(seed, column, row) >>> 11) * 0x1.0p-53;
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
