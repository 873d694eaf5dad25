package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

/**
 * One (workload, reader) row of the results: medians over the measured runs, each figure on its own. Boxed
 * fields are null where a figure does not exist: every figure of a FAILED row, the traffic figures where no
 * proxy counted, the ratios where there is nothing to divide by.
 *
 * @param lists ListObjectsV2 requests the proxy counted (apart from {@code gets}, which are object GETs)
 * @param transferredBytes response body bytes the proxy counted
 * @param neededBytes the bytes the workload itself needed
 * @param heapBytes the heap pools' summed peak during a run, less the heap in use just before it
 * @param vsReference median time over the reference reader's (Rangefetch's) on the same workload
 * @param idealSeconds the workload's lower bound on the modelled network
 * @param vsIdeal median time over {@code idealSeconds}
 * @param vectoredFallback whether the reader's vectored read was the positioned-read fallback
 */
public record SummaryRow(String workload, String reader, String status, String failure, int runs, Double seconds,
        Long gets, Long heads, Long lists, Long transferredBytes, Long neededBytes, Long heapBytes, Double vsReference,
        Double idealSeconds, Double vsIdeal, boolean vectoredFallback) {

    public static final String OK = "OK";
    public static final String FAILED = "FAILED";

    public SummaryRow {
        requireNonNull(workload, "workload is null");
        requireNonNull(reader, "reader is null");
        requireNonNull(status, "status is null");
    }

    public boolean failed() {
        return FAILED.equals(status);
    }
}
