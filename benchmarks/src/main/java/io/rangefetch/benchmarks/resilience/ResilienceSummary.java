package io.rangefetch.benchmarks.resilience;

import static io.rangefetch.benchmarks.report.Summary.median;
import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.RunSample;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns measured pairs (a row under a scenario's faults and the same reader's clean row) into {@link
 * ResilienceRow}s, and judges Rangefetch's rows against the scenario's target.
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
    public record Measured(Scenario scenario, String reader, Optional<String> feature, RowResult clean,
            RowResult faulted) {
        public Measured {
            requireNonNull(scenario, "scenario is null");
            requireNonNull(reader, "reader is null");
            requireNonNull(feature, "feature is null");
            requireNonNull(clean, "clean is null");
            requireNonNull(faulted, "faulted is null");
        }
    }

    /** The rows in the order given, each with its target verdict. */
    public static List<ResilienceRow> of(List<Measured> measured) {
        List<ResilienceRow> rows = measured.stream().map(ResilienceSummary::row).toList();
        List<ResilienceRow> judged = new ArrayList<>();
        for (ResilienceRow row : rows) {
            judged.add(row.withTarget(verdict(row, rows)));
        }
        return judged;
    }

    private static ResilienceRow row(Measured measured) {
        RowResult faulted = measured.faulted();
        String scenario = measured.scenario().id();
        String feature = measured.feature().orElse(null);
        Double cleanSeconds = measured.clean().failed() ? null : seconds(measured.clean().measured());
        Double cleanRate = measured.clean().failed() || cleanSeconds == 0
                ? null
                : median(measured.clean().measured(), run -> run.traffic().gets()) / cleanSeconds;
        if (faulted.failed()) {
            return new ResilienceRow(scenario, faulted.workload(), measured.reader(), feature, ResilienceRow.FAILED,
                    faulted.failure().get(), 0, null, cleanSeconds, null, null, null, null, null, cleanRate, null, null,
                    null);
        }
        List<RunSample> runs = faulted.measured();
        double seconds = seconds(runs);
        boolean counted = runs.stream().allMatch(run -> run.traffic().known());
        Long gets = counted ? median(runs, run -> run.traffic().gets()) : null;
        List<Long> reads = runs.stream().flatMap(run -> run.readNanos().stream()).sorted().toList();
        return new ResilienceRow(scenario, faulted.workload(), measured.reader(), feature, ResilienceRow.OK, null,
                runs.size(), seconds, cleanSeconds,
                cleanSeconds == null || cleanSeconds == 0 ? null : seconds / cleanSeconds,
                counted ? median(runs, run -> run.traffic().slowDowns()) : null,
                gets,
                counted ? median(runs, run -> run.traffic().delayedFirstBytes()) : null,
                gets == null || seconds == 0 ? null : gets / seconds,
                cleanRate,
                reads.isEmpty() ? null : percentile(reads, 0.5) / 1e6,
                reads.isEmpty() ? null : percentile(reads, 0.99) / 1e6,
                null);
    }

    /** Null where no target applies: readers other than Rangefetch, and Rangefetch with the feature off. */
    private static String verdict(ResilienceRow row, List<ResilienceRow> rows) {
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

    private static String ratio(ResilienceRow row, double most) {
        if (row.vsClean() == null) {
            return "unknown: no clean time";
        }
        boolean met = row.vsClean() <= most;
        return format("%s: %.2f× clean %s %s×", met ? "met" : "missed", row.vsClean(), met ? "≤" : ">", number(most));
    }

    private static String againstFeatureOff(ResilienceRow on, List<ResilienceRow> rows) {
        Optional<ResilienceRow> off = rows.stream()
                .filter(row -> row.scenario().equals(on.scenario()) && row.workload().equals(on.workload())
                        && row.reader().equals(on.reader()) && "false".equals(row.feature()))
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
        return format("%s: %.0f%% fewer 503s (≥ %.0f%%), %.2f× the time without it (≤ %s×)", met ? "met" : "missed",
                cut * 100, RATE_LIMIT_MIN_CUT * 100, time, number(RATE_LIMIT_MAX_RATIO));
    }

    private static String tail(ResilienceRow row) {
        if (row.vsClean() == null || row.readMedianMillis() == null) {
            return "unknown: no clean time or no read latencies";
        }
        double tail = row.readP99Millis() / row.readMedianMillis();
        boolean met = row.vsClean() <= SLOW_FIRST_BYTE_MAX_RATIO && tail <= SLOW_FIRST_BYTE_MAX_TAIL;
        return format("%s: %.2f× clean (≤ %s×), p99 %.1f× the median (≤ %s×)", met ? "met" : "missed", row.vsClean(),
                number(SLOW_FIRST_BYTE_MAX_RATIO), tail, number(SLOW_FIRST_BYTE_MAX_TAIL));
    }

    private static double seconds(List<RunSample> runs) {
        return median(runs, RunSample::nanos) / 1e9;
    }

    /** The nearest-rank percentile of sorted values: the smallest value at least {@code p} of them do not pass. */
    static long percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        int rank = (int) Math.ceil(p * sorted.size());
        return sorted.get(Math.max(rank, 1) - 1);
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    private static String format(String pattern, Object... values) {
        return String.format(Locale.ROOT, pattern, values);
    }
}
