package io.rangefetch.benchmarks.data;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The listing workload's layout at full scale: how many partition directories, of how many tiny objects each.
 * Written {@code 2400x10} on the runner's command line ({@code --listing-layout}) and in reports.
 *
 * @param partitions at full scale; at least {@value #FEWEST_PARTITIONS}, so that the first and the last 100 are
 *     two sets apart
 */
public record ListingShape(int partitions, int filesPerPartition) {

    /** The runner's default: Qubole's layout at a tenth of its partitions, ten objects each. */
    public static final ListingShape BENCHMARK = new ListingShape(2_400, 10);
    /** Qubole's layout: 24,000 partitions of one object. */
    public static final ListingShape QUBOLE = new ListingShape(24_000, 1);

    static final int FEWEST_PARTITIONS = 200;
    static final int MOST_OBJECTS = 1_000_000;
    private static final Pattern WRITTEN = Pattern.compile("(\\d{1,9})\\s*[x×]\\s*(\\d{1,9})");

    public ListingShape {
        if (partitions < FEWEST_PARTITIONS
                || filesPerPartition < 1
                || (long) partitions * filesPerPartition > MOST_OBJECTS) {
            throw new IllegalArgumentException(String.format(
                    Locale.ROOT,
                    "A listing layout needs at least %d "
                            + "partitions of at least one object and at most %,d objects in all: got %d x %d",
                    FEWEST_PARTITIONS,
                    MOST_OBJECTS,
                    partitions,
                    filesPerPartition));
        }
    }

    /** Reads {@code PARTITIONSxFILES}, e.g. {@code 24000x1}. */
    public static ListingShape parse(String written) {
        Matcher matcher = WRITTEN.matcher(written == null ? "" : written.strip().toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new IllegalArgumentException("A listing layout is written PARTITIONSxFILES, e.g. 24000x1 or "
                    + "2400x10: got '" + written + "'");
        }
        return new ListingShape(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)));
    }

    /** As written on the command line: {@code 2400x10}. */
    public String id() {
        return partitions + "x" + filesPerPartition;
    }

    /** For reports: {@code 2,400 × 10}. */
    public String label() {
        return String.format(Locale.ROOT, "%,d × %d", partitions, filesPerPartition);
    }
}
