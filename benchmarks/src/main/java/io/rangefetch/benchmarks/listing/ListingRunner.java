package io.rangefetch.benchmarks.listing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.listing.ListingStrategy.Lister;
import io.rangefetch.benchmarks.readers.S3Target;
import io.rangefetch.benchmarks.run.Condition;
import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.RunSample;
import io.rangefetch.benchmarks.run.Traffic;
import io.rangefetch.benchmarks.run.TrafficCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * Runs every listing strategy on every wanted set, warm-ups first, as the scenario runner runs readers: each run
 * opens the strategy's clients afresh (not timed), the proxy's counter is reset just before the listing and read
 * as soon as it returns. Every run's result must equal the objects under the wanted directories (keys, lengths,
 * ETags, in key order): a strategy that lists anything else gets a failed row with the reason, never a time.
 *
 * <p>A row is a {@link RowResult} whose reader is the strategy's name and whose workload is the set's id; a
 * sample's needed bytes are the objects found, which a listing needs rather than bytes. Not thread-safe.
 */
public final class ListingRunner {

    private final S3Target target;
    private final TrafficCounter traffic;
    private final int warmups;
    private final int runs;

    public ListingRunner(S3Target target, TrafficCounter traffic, int warmups, int runs) {
        this.target = requireNonNull(target, "target is null");
        this.traffic = requireNonNull(traffic, "traffic is null");
        if (warmups < 0 || runs < 1) {
            throw new IllegalArgumentException("need warmups >= 0 and runs >= 1: " + warmups + ", " + runs);
        }
        this.warmups = warmups;
        this.runs = runs;
    }

    /**
     * @param stored every object of the layout, in key order, as written
     * @return one row per (set, strategy), sets in the order given, strategies in the order given within each
     */
    public List<RowResult> run(List<WantedSet> sets, List<ListingStrategy> strategies, List<StoredObject> stored) {
        List<RowResult> rows = new ArrayList<>();
        try (ProgressBar bar = new ProgressBarBuilder()
                .setTaskName("Listing")
                .setInitialMax((long) sets.size() * strategies.size() * (warmups + runs))
                .setUnit(" runs", 1)
                .build()) {
            for (WantedSet set : sets) {
                List<StoredObject> expected = set.expected(stored);
                for (ListingStrategy strategy : strategies) {
                    bar.setExtraMessage(strategy.name() + " · " + set.id());
                    rows.add(runRow(set, strategy, expected, bar));
                }
            }
        }
        return rows;
    }

    private RowResult runRow(WantedSet set, ListingStrategy strategy, List<StoredObject> expected, ProgressBar bar) {
        List<RunSample> samples = new ArrayList<>();
        for (int i = 0; i < warmups + runs; i++) {
            boolean warmup = i < warmups;
            try {
                samples.add(runOnce(set, strategy, expected, warmup, warmup ? i + 1 : i - warmups + 1));
                bar.step();
            } catch (Exception | AssertionError e) {
                bar.stepBy(warmups + runs - i);
                System.err.println("\n" + strategy.name() + " failed listing " + set.id() + ":");
                e.printStackTrace(); // the row says what failed; the trace says where
                String failure = e instanceof WrongListingException ? e.getMessage() : e.toString();
                return new RowResult(strategy.name(), set.id(), Optional.of(failure), List.of());
            }
        }
        return new RowResult(strategy.name(), set.id(), Optional.empty(), samples);
    }

    private RunSample runOnce(
            WantedSet set, ListingStrategy strategy, List<StoredObject> expected, boolean warmup, int run)
            throws Exception {
        try (Lister lister = strategy.open(target)) {
            traffic.reset();
            long start = System.nanoTime();
            List<StoredObject> found = lister.list(set.directories());
            long nanos = System.nanoTime() - start;
            Traffic counted = traffic.read();
            if (!found.equals(expected)) {
                throw new WrongListingException(describeDifference(set, found, expected));
            }
            return new RunSample(
                    strategy.name(),
                    set.id(),
                    Condition.CLEAN.name(),
                    warmup,
                    run,
                    nanos,
                    counted,
                    found.size(),
                    0,
                    0,
                    false,
                    List.of());
        }
    }

    static String describeDifference(WantedSet set, List<StoredObject> found, List<StoredObject> expected) {
        int common = Math.min(found.size(), expected.size());
        int first = 0;
        while (first < common && found.get(first).equals(expected.get(first))) {
            first++;
        }
        return String.format(
                "wrong listing of %s: %,d objects where %,d were expected; first difference at #%d: %s "
                        + "where %s was expected",
                set.id(),
                found.size(),
                expected.size(),
                first,
                first < found.size() ? found.get(first) : "nothing",
                first < expected.size() ? expected.get(first) : "nothing");
    }

    /** A strategy listed objects other than those under the wanted directories. */
    static final class WrongListingException extends Exception {
        private static final long serialVersionUID = 1L;

        WrongListingException(String message) {
            super(message);
        }
    }
}
