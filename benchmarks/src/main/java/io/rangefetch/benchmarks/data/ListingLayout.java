package io.rangefetch.benchmarks.data;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The listing workload's objects: a table of {@code partitions} partition directories of {@code
 * full.filesPerPartition()} tiny objects each, {@code <root>p=0000/part-00.bin} and on, the partition number
 * zero-padded so that key order is partition order: {@code full} at a scale (Qubole's 24,000 partitions of one
 * object, or the runner's default, 2,400 of 10). An object's bytes are its key and a newline: only the keys matter
 * to a listing.
 *
 * @param root the table's prefix, ending in {@code /}
 * @param full the layout at full scale, which the wanted sets scale from
 * @param partitions the partitions at this scale
 */
public record ListingLayout(String root, ListingShape full, int partitions) {

    /** The fewest partitions at any scale, so that each wanted set stays a small part of the table. */
    static final int FEWEST_PARTITIONS = 24;

    public ListingLayout {
        requireNonNull(root, "root is null");
        requireNonNull(full, "full is null");
        if (!root.endsWith("/") || partitions < 1 || partitions > full.partitions()) {
            throw new IllegalArgumentException(
                    "bad layout: " + root + ", " + partitions + " partitions of " + full.id());
        }
    }

    /**
     * The runner's layout of {@code full} at {@code scale}: its partitions scaled (at least 24), under a root of
     * its own ({@code bench/scale-1/listing/} for the default layout, {@code bench/scale-1/listing-24000x1/} for
     * another), so that each layout's objects are written once and never listed with another's.
     */
    public static ListingLayout benchmark(ListingShape full, double scale) {
        requireNonNull(full, "full is null");
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("scale must be in (0, 1]: " + scale);
        }
        String root =
                "bench/scale-" + BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString() + "/listing"
                        + (full.equals(ListingShape.BENCHMARK) ? "" : "-" + full.id()) + "/";
        return new ListingLayout(root, full, Math.max(FEWEST_PARTITIONS, (int) Math.round(full.partitions() * scale)));
    }

    public int filesPerPartition() {
        return full.filesPerPartition();
    }

    /** Partition {@code index}'s directory, e.g. {@code <root>p=0042/}. */
    public String partition(int index) {
        if (index < 0 || index >= partitions) {
            throw new IllegalArgumentException("no partition " + index + " of " + partitions);
        }
        return root
                + String.format(
                        "p=%0" + Math.max(4, Integer.toString(partitions - 1).length()) + "d/", index);
    }

    /** The keys of partition {@code index}, in key order. */
    public List<String> keys(int index) {
        String directory = partition(index);
        List<String> keys = new ArrayList<>(filesPerPartition());
        int width = Math.max(2, Integer.toString(filesPerPartition() - 1).length()); // key order is file order
        for (int file = 0; file < filesPerPartition(); file++) {
            keys.add(directory + String.format("part-%0" + width + "d.bin", file));
        }
        return keys;
    }

    /** Every key, in key order. */
    public List<String> keys() {
        List<String> keys = new ArrayList<>(partitions * filesPerPartition());
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
