package io.rangefetch.benchmarks.data;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The listing workload's objects: a table of {@code partitions} partition directories of {@code filesPerPartition}
 * tiny objects each, {@code <root>p=0000/part-00.bin} and on, the partition number zero-padded so that key order is
 * partition order (Qubole's layout at its smaller scale: 2,400 partitions of 10 objects). An object's bytes are
 * its key and a newline: only the keys matter to a listing.
 *
 * @param root the table's prefix, ending in {@code /}
 */
public record ListingLayout(String root, int partitions, int filesPerPartition) {

    /** Partitions at scale 1. */
    public static final int FULL_PARTITIONS = 2_400;
    /** The fewest partitions at any scale, so that each wanted set stays a small part of the table. */
    static final int FEWEST_PARTITIONS = 24;
    static final int FILES_PER_PARTITION = 10;

    public ListingLayout {
        requireNonNull(root, "root is null");
        if (!root.endsWith("/") || partitions < 1 || filesPerPartition < 1 || partitions > 1_000_000) {
            throw new IllegalArgumentException("bad layout: " + root + ", " + partitions + " partitions of "
                    + filesPerPartition);
        }
    }

    /** The runner's layout at {@code scale}: {@value #FULL_PARTITIONS} partitions scaled (at least 24) of 10. */
    public static ListingLayout benchmark(double scale) {
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("scale must be in (0, 1]: " + scale);
        }
        String root = "bench/scale-" + BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString() + "/listing/";
        return new ListingLayout(root, Math.max(FEWEST_PARTITIONS, (int) Math.round(FULL_PARTITIONS * scale)),
                FILES_PER_PARTITION);
    }

    /** Partition {@code index}'s directory, e.g. {@code <root>p=0042/}. */
    public String partition(int index) {
        if (index < 0 || index >= partitions) {
            throw new IllegalArgumentException("no partition " + index + " of " + partitions);
        }
        return root + String.format("p=%0" + Math.max(4, Integer.toString(partitions - 1).length()) + "d/", index);
    }

    /** The keys of partition {@code index}, in key order. */
    public List<String> keys(int index) {
        String directory = partition(index);
        List<String> keys = new ArrayList<>(filesPerPartition);
        for (int file = 0; file < filesPerPartition; file++) {
            keys.add(directory + String.format("part-%02d.bin", file));
        }
        return keys;
    }

    /** Every key, in key order. */
    public List<String> keys() {
        List<String> keys = new ArrayList<>(partitions * filesPerPartition);
        for (int index = 0; index < partitions; index++) {
            keys.addAll(keys(index));
        }
        return keys;
    }

    /** The bytes of the object at {@code key}. */
    public static byte[] content(String key) {
        return (key + "\n").getBytes(UTF_8);
    }
}
