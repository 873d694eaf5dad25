package io.rangefetch.benchmarks.resilience;

import static java.util.Objects.requireNonNull;

/**
 * One reader on one workload under one scenario's faults, beside its clean run: medians over the measured
 * runs. Boxed fields are null where a figure does not exist (a FAILED row's figures, a clean run that failed,
 * read latencies of a workload that does not time its reads).
 *
 * @param scenario the {@link Scenario#id()}
 * @param feature the scenario's feature setting for Rangefetch ({@code "true"}, {@code "false"}), null for
 *     other readers
 * @param cleanSeconds the same reader's median time on the same workload without faults
 * @param slowDowns {@code 503 SlowDown} answers the reader received, as the proxy counted them
 * @param delayedFirstBytes responses the proxy held back as a slow first byte
 * @param cleanGetsPerSecond GETs over time in the clean runs: the request rate the reader reaches unthrottled
 * @param readMedianMillis the median of every measured run's read latencies taken together
 * @param readP99Millis their 99th percentile (nearest rank)
 * @param target whether Rangefetch met the scenario's target on this row: "met", "missed" with why, or null
 *     where no target applies (other readers, the feature off)
 */
public record ResilienceRow(String scenario, String workload, String reader, String feature, String status,
        String failure, int runs, Double seconds, Double cleanSeconds, Double vsClean, Long slowDowns, Long gets,
        Long delayedFirstBytes, Double getsPerSecond, Double cleanGetsPerSecond, Double readMedianMillis,
        Double readP99Millis, String target) {

    public static final String OK = "OK";
    public static final String FAILED = "FAILED";

    public ResilienceRow {
        requireNonNull(scenario, "scenario is null");
        requireNonNull(workload, "workload is null");
        requireNonNull(reader, "reader is null");
        requireNonNull(status, "status is null");
    }

    public boolean failed() {
        return FAILED.equals(status);
    }

    /** This row with its target verdict. */
    ResilienceRow withTarget(String verdict) {
        return new ResilienceRow(scenario, workload, reader, feature, status, failure, runs, seconds, cleanSeconds,
                vsClean, slowDowns, gets, delayedFirstBytes, getsPerSecond, cleanGetsPerSecond, readMedianMillis,
                readP99Millis, verdict);
    }
}
