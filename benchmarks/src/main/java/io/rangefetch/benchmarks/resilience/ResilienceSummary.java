package io.rangefetch.benchmarks.resilience;

import static io.rangefetch.benchmarks.report.Summary.median;
import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.report.Summary;
import io.rangefetch.benchmarks.run.RowResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns measured pairs (a row under a scenario's faults and the same reader's clean row) into {@link
 * ResultRow}s, the faulted row's medians beside the clean row's, and judges Rangefetch's rows against the
 * scenario's target.
 */
public final class ResilienceSummary {

    static final double THROTTLE_10_MAX_RATIO = 1.3;
    static final double THROTTLE_50_MAX_RATIO = 3;
    static final double RATE_LIMIT_MIN_CUT = 0.8;
    static final double RATE_LIMIT_MAX_RATIO = 1.1;
    static final double SLOW_FIRST_BYTE_MAX_RATIO = 1.3;
    static final double SLOW_FIRST_BYTE_MAX_TAIL = 3;

    private ResilienceSummary() {}

    /**
     * One reader variant on one workload: its row under the scenario's faults and its clean row.
     *
     * @param reader the reader's name without the feature setting, to pair Rangefetch's on and off rows
     * @param feature the feature setting ({@code "true"} or {@code "false"}) for Rangefetch, empty for others
     */
    public record Measured(
            Scenario scenario, String reader, Optional<String> feature, RowResult clean, RowResult faulted) {
        public Measured {
            requireNonNull(scenario, "scenario is null");
            requireNonNull(reader, "reader is null");
            requireNonNull(feature, "feature is null");
            requireNonNull(clean, "clean is null");
            requireNonNull(faulted, "faulted is null");
        }
    }

    /** The rows in the order given, each with its target verdict. */
    public static List<ResultRow> of(List<Measured> measured) {
        List<ResultRow> rows = measured.stream().map(ResilienceSummary::row).toList();
        List<ResultRow> judged = new ArrayList<>();
        for (ResultRow row : rows) {
            judged.add(row.withTarget(verdict(row, rows)));
        }
        return judged;
    }

    private static ResultRow row(Measured measured) {
        RowResult clean = measured.clean();
        Double cleanSeconds = clean.failed() ? null : Summary.seconds(clean);
        Double cleanRate = clean.failed() || cleanSeconds == 0
                ? null
                : median(clean.measured(), run -> run.traffic().gets()) / cleanSeconds;
        return Summary.measure(
                        measured.faulted(),
                        measured.scenario().id(),
                        measured.reader(),
                        measured.feature().orElse(null))
                .againstClean(cleanSeconds, cleanRate);
    }

    /** Null where no target applies: readers other than Rangefetch, and Rangefetch with the feature off. */
    private static String verdict(ResultRow row, List<ResultRow> rows) {
        if (!"true".equals(row.feature())) {
            return null;
        }
        if (row.failed()) {
            return "missed: the run failed";
        }
        return switch (Scenario.byId(row.scenario())) {
            case THROTTLE_10 -> ratio(row, THROTTLE_10_MAX_RATIO);
            case THROTTLE_50 -> ratio(row, THROTTLE_50_MAX_RATIO);
            case RATE_LIMIT -> againstFeatureOff(row, rows);
            case SLOW_FIRST_BYTE -> tail(row);
        };
    }

    private static String ratio(ResultRow row, double most) {
        if (row.vsClean() == null) {
            return "unknown: no clean time";
        }
        boolean met = row.vsClean() <= most;
        return format("%s: %.2f× clean %s %s×", met ? "met" : "missed", row.vsClean(), met ? "≤" : ">", number(most));
    }

    private static String againstFeatureOff(ResultRow on, List<ResultRow> rows) {
        Optional<ResultRow> off = rows.stream()
                .filter(row -> row.scenario().equals(on.scenario())
                        && row.workload().equals(on.workload())
                        && row.reader().equals(on.reader())
                        && "false".equals(row.feature()))
                .findFirst();
        if (off.isEmpty() || off.get().failed()) {
            return "unknown: no run with the governor off";
        }
        Long offSlowDowns = off.get().slowDowns();
        if (offSlowDowns == null || on.slowDowns() == null) {
            return "unknown: 503s not counted";
        }
        if (offSlowDowns == 0) {
            return "unknown: no 503s without the governor (raise the load or lower --rate-limit)";
        }
        double cut = 1 - on.slowDowns() / (double) offSlowDowns;
        double time = on.seconds() / off.get().seconds();
        boolean met = cut >= RATE_LIMIT_MIN_CUT && time <= RATE_LIMIT_MAX_RATIO;
        return format(
                "%s: %.0f%% fewer 503s (≥ %.0f%%), %.2f× the time without it (≤ %s×)",
                met ? "met" : "missed", cut * 100, RATE_LIMIT_MIN_CUT * 100, time, number(RATE_LIMIT_MAX_RATIO));
    }

    private static String tail(ResultRow row) {
        if (row.vsClean() == null || row.readMedianMillis() == null) {
            return "unknown: no clean time or no read latencies";
        }
        double tail = row.readP99Millis() / row.readMedianMillis();
        boolean met = row.vsClean() <= SLOW_FIRST_BYTE_MAX_RATIO && tail <= SLOW_FIRST_BYTE_MAX_TAIL;
        return format(
                "%s: %.2f× clean (≤ %s×), p99 %.1f× the median (≤ %s×)",
                met ? "met" : "missed",
                row.vsClean(),
                number(SLOW_FIRST_BYTE_MAX_RATIO),
                tail,
                number(SLOW_FIRST_BYTE_MAX_TAIL));
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    private static String format(String pattern, Object... values) {
        return String.format(Locale.ROOT, pattern, values);
    }
}
