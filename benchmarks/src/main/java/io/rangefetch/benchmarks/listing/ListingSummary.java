package io.rangefetch.benchmarks.listing;

import static io.rangefetch.benchmarks.report.Summary.median;
import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.RunSample;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns the listing runner's rows into {@link ListingRow}s and judges Rangefetch's against issue 15's targets:
 * <ul>
 *   <li>the first and last partitions ({@link WantedSet#FIRST_LAST}, the blog's case) in at most {@value
 *       #BLOG_CASE_MAX_LISTS} LIST calls;
 *   <li>on every set, no more calls than the better of the two baselines;
 *   <li>on the sets of a few partitions ({@link WantedSet#FIRST_LAST}, {@link WantedSet#RANDOM}), at least {@value
 *       #MIN_SPEEDUP_OVER_PER_LOCATION}× faster than one listing per location.
 * </ul>
 * The verdicts are reported, never asserted.
 */
public final class ListingSummary {

    static final long BLOG_CASE_MAX_LISTS = 3;
    static final double MIN_SPEEDUP_OVER_PER_LOCATION = 10;

    private ListingSummary() {}

    /**
     * @param rangefetch the name of Rangefetch's strategy, which the others are compared with
     * @param perLocation the name of the one-listing-per-location strategy
     */
    public static List<ListingRow> of(List<RowResult> rows, String rangefetch, String perLocation) {
        requireNonNull(rangefetch, "rangefetch is null");
        requireNonNull(perLocation, "perLocation is null");
        List<ListingRow> unjudged = new ArrayList<>();
        for (RowResult row : rows) {
            Optional<RowResult> reference = rows.stream()
                    .filter(other -> other.workload().equals(row.workload()) && other.reader().equals(rangefetch)
                            && !other.failed())
                    .findFirst();
            unjudged.add(row(row, reference.map(ListingSummary::seconds)));
        }
        List<ListingRow> judged = new ArrayList<>();
        for (ListingRow row : unjudged) {
            judged.add(row.strategy().equals(rangefetch) ? row.withTarget(verdict(row, unjudged, perLocation)) : row);
        }
        return judged;
    }

    private static ListingRow row(RowResult row, Optional<Double> referenceSeconds) {
        if (row.failed()) {
            return new ListingRow(row.workload(), row.reader(), ListingRow.FAILED, row.failure().get(), 0, null, null,
                    null, null, null, null);
        }
        List<RunSample> runs = row.measured();
        double seconds = seconds(row);
        boolean counted = runs.stream().allMatch(run -> run.traffic().known());
        return new ListingRow(row.workload(), row.reader(), ListingRow.OK, null, runs.size(), seconds,
                counted ? median(runs, run -> run.traffic().lists()) : null,
                counted ? median(runs, run -> run.traffic().gets()) : null,
                median(runs, RunSample::neededBytes),
                referenceSeconds.filter(reference -> reference > 0).map(reference -> seconds / reference).orElse(null),
                null);
    }

    private static String verdict(ListingRow rangefetch, List<ListingRow> rows, String perLocation) {
        if (rangefetch.failed()) {
            return "missed: the listing failed";
        }
        if (rangefetch.lists() == null) {
            return "unknown: LIST calls not counted (no proxy)";
        }
        List<ListingRow> baselines = rows.stream()
                .filter(row -> row.set().equals(rangefetch.set()) && row != rangefetch)
                .toList();
        List<String> verdicts = new ArrayList<>();
        if (rangefetch.set().equals(WantedSet.FIRST_LAST)) {
            boolean met = rangefetch.lists() <= BLOG_CASE_MAX_LISTS;
            verdicts.add(format("%s: %d LIST calls %s %d", met ? "met" : "missed", rangefetch.lists(), met ? "≤" : ">",
                    BLOG_CASE_MAX_LISTS));
        }
        Optional<Long> fewestOfBaselines = baselines.stream()
                .filter(row -> !row.failed() && row.lists() != null)
                .map(ListingRow::lists)
                .min(Long::compare);
        if (baselines.isEmpty() || baselines.stream().anyMatch(ListingRow::failed) || fewestOfBaselines.isEmpty()) {
            verdicts.add("unknown: no calls of both baselines");
        } else {
            boolean met = rangefetch.lists() <= fewestOfBaselines.get();
            verdicts.add(format("%s: %d LIST calls %s %d, the better baseline's", met ? "met" : "missed",
                    rangefetch.lists(), met ? "≤" : ">", fewestOfBaselines.get()));
        }
        if (rangefetch.set().equals(WantedSet.FIRST_LAST) || rangefetch.set().equals(WantedSet.RANDOM)) {
            Optional<ListingRow> oneEach = baselines.stream()
                    .filter(row -> row.strategy().equals(perLocation) && !row.failed())
                    .findFirst();
            if (oneEach.isEmpty() || rangefetch.seconds() == 0) {
                verdicts.add("unknown: no time of one listing per location");
            } else {
                double speedup = oneEach.get().seconds() / rangefetch.seconds();
                boolean met = speedup >= MIN_SPEEDUP_OVER_PER_LOCATION;
                verdicts.add(format("%s: %.1f× faster than one listing per location (%s %.0f×)", met ? "met" : "missed",
                        speedup, met ? "≥" : "<", MIN_SPEEDUP_OVER_PER_LOCATION));
            }
        }
        return String.join("; ", verdicts);
    }

    private static double seconds(RowResult row) {
        return median(row.measured(), RunSample::nanos) / 1e9;
    }

    private static String format(String pattern, Object... values) {
        return String.format(Locale.ROOT, pattern, values);
    }
}
