package io.rangefetch.benchmarks.listing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.ListingLayout;
import io.rangefetch.benchmarks.data.StoredObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Partitions an engine wants listed, as their directories, in key order.
 *
 * @param id the row name in reports ({@link #FIRST_LAST}, {@link #RANDOM}, {@link #ALL})
 * @param description what was wanted, e.g. "the first 100 and last 100 of 2,400 partitions"
 * @param directories the wanted partitions' directories, in key order, no repeats
 */
public record WantedSet(String id, String description, List<String> directories) {

    public static final String FIRST_LAST = "first-last";
    public static final String RANDOM = "random";
    public static final String ALL = "all";

    /** The first and last partitions taken at full scale (of 2,400 or 24,000 partitions). */
    static final int FULL_EDGE = 100;

    public WantedSet {
        requireNonNull(id, "id is null");
        requireNonNull(description, "description is null");
        directories = List.copyOf(directories);
        if (directories.isEmpty()) {
            throw new IllegalArgumentException("no directories wanted in " + id);
        }
    }

    /**
     * The runner's sets over {@code layout}: the first 100 and the last 100 partitions, as many at random (drawn
     * with {@code seed}), and all; 100 scaled as the layout's partitions are from its full scale (at least 2).
     */
    public static List<WantedSet> standard(ListingLayout layout, long seed) {
        requireNonNull(layout, "layout is null");
        int partitions = layout.partitions();
        int edge = Math.max(2, (int)
                Math.round(FULL_EDGE * (double) partitions / layout.full().partitions()));
        if (2 * edge > partitions) {
            throw new IllegalArgumentException(partitions + " partitions are too few for sets of " + 2 * edge);
        }
        TreeSet<Integer> firstLast = new TreeSet<>();
        for (int i = 0; i < edge; i++) {
            firstLast.add(i);
            firstLast.add(partitions - 1 - i);
        }
        TreeSet<Integer> random = new TreeSet<>();
        Random draws = new Random(seed);
        while (random.size() < 2 * edge) {
            random.add(draws.nextInt(partitions));
        }
        TreeSet<Integer> all = new TreeSet<>();
        for (int i = 0; i < partitions; i++) {
            all.add(i);
        }
        String of = String.format(" of %,d partitions", partitions);
        return List.of(
                new WantedSet(
                        FIRST_LAST,
                        String.format("the first %,d and the last %,d%s", edge, edge, of),
                        directories(layout, firstLast)),
                new WantedSet(
                        RANDOM,
                        String.format("%,d at random (seed %d)%s", 2 * edge, seed, of),
                        directories(layout, random)),
                new WantedSet(ALL, String.format("all %,d partitions", partitions), directories(layout, all)));
    }

    /** What a right listing answers: the objects under the wanted directories, in key order. */
    public List<StoredObject> expected(List<StoredObject> everything) {
        TreeSet<String> wanted = new TreeSet<>(directories);
        List<StoredObject> expected = new ArrayList<>();
        for (StoredObject object : everything) {
            if (isUnder(wanted, object.key())) {
                expected.add(object);
            }
        }
        return expected;
    }

    /** The longest prefix, ending in {@code /}, that every wanted directory starts with. */
    public String commonPrefix() {
        return commonPrefix(directories);
    }

    /** The longest prefix, ending in {@code /}, that every one of {@code directories} (in key order) starts with. */
    static String commonPrefix(List<String> directories) {
        if (directories.isEmpty()) {
            throw new IllegalArgumentException("no directories");
        }
        String first = directories.get(0);
        String last = directories.get(directories.size() - 1); // sorted: what the first and last share, all share
        int same = 0;
        while (same < Math.min(first.length(), last.length()) && first.charAt(same) == last.charAt(same)) {
            same++;
        }
        return first.substring(0, first.lastIndexOf('/', same - 1) + 1);
    }

    /** Whether {@code key} lies under one of the {@code wanted} directories. */
    static boolean isUnder(TreeSet<String> wanted, String key) {
        String floor = wanted.floor(key); // directories do not nest, so only the greatest at or below can hold it
        return floor != null && key.startsWith(floor);
    }

    private static List<String> directories(ListingLayout layout, TreeSet<Integer> partitions) {
        return partitions.stream().map(layout::partition).toList();
    }
}
