package io.rangefetch.benchmarks.listing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.report.Summary;
import io.rangefetch.benchmarks.run.RowResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns the listing runner's rows into {@link ResultRow}s (a wanted set as the workload, a strategy as the reader,
 * the objects listed as the bytes needed) and judges Rangefetch's against issue 15's targets:
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
    public static List<ResultRow> of(List<RowResult> rows, String rangefetch, String perLocation) {
        requireNonNull(rangefetch, "rangefetch is null");
        requireNonNull(perLocation, "perLocation is null");
        List<ResultRow> unjudged = new ArrayList<>();
        for (RowResult row : rows) {
            Optional<Double> reference = rows.stream()
                    .filter(other -> other.workload().equals(row.workload())
                            && other.reader().equals(rangefetch)
                            && !other.failed())
                    .findFirst()
                    .map(Summary::seconds);
            ResultRow measured = Summary.measure(row);
            unjudged.add(
                    measured.failed()
                            ? measured
                            : measured.compared(
                                    reference
                                            .filter(seconds -> seconds > 0)
                                            .map(seconds -> measured.seconds() / seconds)
                                            .orElse(null),
                                    null,
                                    null));
        }
        List<ResultRow> judged = new ArrayList<>();
        for (ResultRow row : unjudged) {
            judged.add(row.reader().equals(rangefetch) ? row.withTarget(verdict(row, unjudged, perLocation)) : row);
        }
        return judged;
    }

    private static String verdict(ResultRow rangefetch, List<ResultRow> rows, String perLocation) {
        if (rangefetch.failed()) {
            return "missed: the listing failed";
        }
        if (rangefetch.lists() == null) {
            return "unknown: LIST calls not counted (no proxy)";
        }
        List<ResultRow> baselines = rows.stream()
                .filter(row -> row.workload().equals(rangefetch.workload()) && row != rangefetch)
                .toList();
        List<String> verdicts = new ArrayList<>();
        if (rangefetch.workload().equals(WantedSet.FIRST_LAST)) {
            boolean met = rangefetch.lists() <= BLOG_CASE_MAX_LISTS;
            verdicts.add(format(
                    "%s: %d LIST calls %s %d",
                    met ? "met" : "missed", rangefetch.lists(), met ? "≤" : ">", BLOG_CASE_MAX_LISTS));
        }
        Optional<Long> fewestOfBaselines = baselines.stream()
                .filter(row -> !row.failed() && row.lists() != null)
                .map(ResultRow::lists)
                .min(Long::compare);
        if (baselines.isEmpty() || baselines.stream().anyMatch(ResultRow::failed) || fewestOfBaselines.isEmpty()) {
            verdicts.add("unknown: no calls of both baselines");
        } else {
            boolean met = rangefetch.lists() <= fewestOfBaselines.get();
            verdicts.add(format(
                    "%s: %d LIST calls %s %d, the better baseline's",
                    met ? "met" : "missed", rangefetch.lists(), met ? "≤" : ">", fewestOfBaselines.get()));
        }
        if (rangefetch.workload().equals(WantedSet.FIRST_LAST)
                || rangefetch.workload().equals(WantedSet.RANDOM)) {
            Optional<ResultRow> oneEach = baselines.stream()
                    .filter(row -> row.reader().equals(perLocation) && !row.failed())
                    .findFirst();
            if (oneEach.isEmpty() || rangefetch.seconds() == 0) {
                verdicts.add("unknown: no time of one listing per location");
            } else {
                double speedup = oneEach.get().seconds() / rangefetch.seconds();
                boolean met = speedup >= MIN_SPEEDUP_OVER_PER_LOCATION;
                verdicts.add(format(
                        "%s: %.1f× faster than one listing per location (%s %.0f×)",
                        met ? "met" : "missed", speedup, met ? "≥" : "<", MIN_SPEEDUP_OVER_PER_LOCATION));
            }
        }
        return String.join("; ", verdicts);
    }

    private static String format(String pattern, Object... values) {
        return String.format(Locale.ROOT, pattern, values);
    }
}
