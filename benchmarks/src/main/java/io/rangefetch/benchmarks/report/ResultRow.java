package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

/**
 * The one row every family of results is made of: one reader (or listing strategy) on one workload (or wanted
 * set) under one condition, as medians over the measured runs, then what the family compared it with.
 *
 * <p>Design: the comparison, the resilience scenarios and the listing workload all measure the same things (time,
 * the proxy's counts, bytes), so {@link Summary#measure} takes every median once and each family only adds its
 * comparisons ({@link #compared}, {@link #againstClean}, {@link #withTarget}) and picks its columns
 * ({@link MarkdownTable}). The record is flat, so a results file is one object per row with every figure named.
 * Boxed fields are null where a figure does not exist: every figure of a FAILED row, the proxy's counts where no
 * proxy counted, read latencies of a workload that does not time its reads, a comparison the family did not make.
 *
 * @param scenario the condition the row ran under: {@code "clean"}, or a resilience scenario's id
 * @param workload the workload, or the listing's wanted set
 * @param reader the reader, or the listing strategy; a resilience row names the reader without its feature setting
 * @param feature the resilience scenario's feature setting ({@code "true"}, {@code "false"}) for Rangefetch; null
 *     elsewhere
 * @param lists ListObjectsV2 requests the proxy counted (apart from {@code gets}, which are object GETs)
 * @param transferredBytes response body bytes the proxy counted
 * @param neededBytes the bytes the workload itself needed; for a listing, the objects it listed (every one checked)
 * @param heapBytes the heap pools' summed peak during a run, less the heap in use just before it
 * @param slowDowns {@code 503 SlowDown} answers the reader received, as the proxy counted them
 * @param delayedFirstBytes responses the proxy held back as a slow first byte
 * @param readMedianMillis the median of every measured run's read latencies taken together
 * @param readP99Millis their 99th percentile (nearest rank)
 * @param vectoredFallback whether the reader's vectored read was the positioned-read fallback
 * @param vsReference median time over the reference's (Rangefetch's) on the same workload or wanted set
 * @param idealSeconds the workload's lower bound on the modelled network
 * @param vsIdeal median time over {@code idealSeconds}
 * @param cleanSeconds the same reader's median time on the same workload without faults
 * @param getsPerSecond GETs over time: the request rate reached
 * @param cleanGetsPerSecond the same in the clean runs: the rate the reader reaches unthrottled
 * @param target whether Rangefetch met the family's target on this row: "met", "missed" with why, or null where
 *     no target applies
 */
public record ResultRow(
        String scenario,
        String workload,
        String reader,
        String feature,
        String status,
        String failure,
        int runs,
        Double seconds,
        Long gets,
        Long heads,
        Long lists,
        Long transferredBytes,
        Long neededBytes,
        Long heapBytes,
        Long slowDowns,
        Long delayedFirstBytes,
        Double readMedianMillis,
        Double readP99Millis,
        boolean vectoredFallback,
        Double vsReference,
        Double idealSeconds,
        Double vsIdeal,
        Double cleanSeconds,
        Double vsClean,
        Double getsPerSecond,
        Double cleanGetsPerSecond,
        String target) {

    public static final String OK = "OK";
    public static final String FAILED = "FAILED";

    public ResultRow {
        requireNonNull(scenario, "scenario is null");
        requireNonNull(workload, "workload is null");
        requireNonNull(reader, "reader is null");
        requireNonNull(status, "status is null");
    }

    public boolean failed() {
        return FAILED.equals(status);
    }

    /**
     * A row whose runs failed: every figure null, the failure said.
     *
     * @param feature a resilience scenario's feature setting, or null
     */
    public static ResultRow failed(String scenario, String workload, String reader, String feature, String failure) {
        return new ResultRow(
                scenario,
                workload,
                reader,
                feature,
                FAILED,
                requireNonNull(failure, "failure is null"),
                0,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                false,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    /** This row with the comparison's ratios: to the reference reader, and to the workload's lower bound. */
    public ResultRow compared(Double vsReference, Double idealSeconds, Double vsIdeal) {
        return withComparisons(
                vsReference, idealSeconds, vsIdeal, cleanSeconds, vsClean, getsPerSecond, cleanGetsPerSecond, target);
    }

    /**
     * This row beside the same reader's clean run: {@code cleanSeconds} and {@code cleanGetsPerSecond} (null if
     * that run failed), with this row's time over the clean one and its own request rate.
     */
    public ResultRow againstClean(Double cleanSeconds, Double cleanGetsPerSecond) {
        Double vsClean = seconds == null || cleanSeconds == null || cleanSeconds == 0 ? null : seconds / cleanSeconds;
        Double rate = gets == null || seconds == null || seconds == 0 ? null : gets / seconds;
        return withComparisons(
                vsReference, idealSeconds, vsIdeal, cleanSeconds, vsClean, rate, cleanGetsPerSecond, target);
    }

    /** This row with a target's verdict. */
    public ResultRow withTarget(String verdict) {
        return withComparisons(
                vsReference, idealSeconds, vsIdeal, cleanSeconds, vsClean, getsPerSecond, cleanGetsPerSecond, verdict);
    }

    /** The measured figures of this row, with the comparisons given: what the families add to a row. */
    private ResultRow withComparisons(
            Double vsReference,
            Double idealSeconds,
            Double vsIdeal,
            Double cleanSeconds,
            Double vsClean,
            Double getsPerSecond,
            Double cleanGetsPerSecond,
            String target) {
        return new ResultRow(
                scenario,
                workload,
                reader,
                feature,
                status,
                failure,
                runs,
                seconds,
                gets,
                heads,
                lists,
                transferredBytes,
                neededBytes,
                heapBytes,
                slowDowns,
                delayedFirstBytes,
                readMedianMillis,
                readP99Millis,
                vectoredFallback,
                vsReference,
                idealSeconds,
                vsIdeal,
                cleanSeconds,
                vsClean,
                getsPerSecond,
                cleanGetsPerSecond,
                target);
    }
}
