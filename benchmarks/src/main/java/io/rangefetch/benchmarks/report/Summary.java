package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.RunSample;
import io.rangefetch.benchmarks.workload.Workload;
import io.rangefetch.it.proxy.NetworkModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * Turns rows of runs into {@link SummaryRow}s: the median of each figure, the ratio to the reference reader
 * on the same workload, and the ratio to the workload's lower bound on the modelled network.
 */
public final class Summary {

    private Summary() {}

    /**
     * @param network the model the proxy applied; empty when nothing was modelled (no ideal then)
     * @param referenceReader the reader the others are compared with; on a workload it did not run, the first
     *     reader in {@code rows} that ran it (the runner lists Rangefetch's readers first: RangefetchS3FileIO on a
     *     workload that needs a FileIO)
     */
    public static List<SummaryRow> of(List<RowResult> rows, List<Workload> workloads, Optional<NetworkModel> network,
            String referenceReader) {
        requireNonNull(network, "network is null");
        requireNonNull(referenceReader, "referenceReader is null");
        Map<String, Workload> byName = new HashMap<>();
        workloads.forEach(workload -> byName.put(workload.name(), workload));
        Map<String, Double> referenceSeconds = new HashMap<>();
        for (RowResult row : rows) {
            if (row.reader().equals(referenceReader) && !row.failed()) {
                referenceSeconds.put(row.workload(), seconds(row));
            }
        }
        Set<String> referenceRan = rows.stream().filter(row -> row.reader().equals(referenceReader))
                .map(RowResult::workload).collect(Collectors.toSet());
        for (RowResult row : rows) {
            if (!referenceRan.contains(row.workload()) && !row.failed()) {
                referenceSeconds.putIfAbsent(row.workload(), seconds(row));
            }
        }
        List<SummaryRow> summary = new ArrayList<>();
        for (RowResult row : rows) {
            if (row.failed()) {
                summary.add(new SummaryRow(row.workload(), row.reader(), SummaryRow.FAILED, row.failure().get(), 0,
                        null, null, null, null, null, null, null, null, null, null, false));
                continue;
            }
            List<RunSample> runs = row.measured();
            double seconds = seconds(row);
            long needed = median(runs, RunSample::neededBytes);
            boolean counted = runs.stream().allMatch(run -> run.traffic().known());
            Double ideal = network.flatMap(model -> lowerBound(byName, row.workload(), model, needed))
                    .map(duration -> duration.toNanos() / 1e9)
                    .orElse(null);
            Double reference = referenceSeconds.get(row.workload());
            summary.add(new SummaryRow(row.workload(), row.reader(), SummaryRow.OK, null, runs.size(), seconds,
                    counted ? median(runs, run -> run.traffic().gets()) : null,
                    counted ? median(runs, run -> run.traffic().heads()) : null,
                    counted ? median(runs, run -> run.traffic().lists()) : null,
                    counted ? median(runs, run -> run.traffic().bodyBytes()) : null,
                    needed,
                    median(runs, RunSample::heapGrowthBytes),
                    reference == null || reference == 0 ? null : seconds / reference,
                    ideal,
                    ideal == null || ideal == 0 ? null : seconds / ideal,
                    runs.stream().anyMatch(RunSample::vectoredFallback)));
        }
        return summary;
    }

    private static Optional<Duration> lowerBound(Map<String, Workload> workloads, String name, NetworkModel model,
            long needed) {
        Workload workload = workloads.get(name);
        return workload == null ? Optional.empty() : workload.lowerBound().time(model, needed);
    }

    private static double seconds(RowResult row) {
        return median(row.measured(), RunSample::nanos) / 1e9;
    }

    /** The middle value; for an even count, the mean of the two middle ones (rounded down). */
    public static long median(List<RunSample> runs, ToLongFunction<RunSample> figure) {
        long[] values = runs.stream().mapToLong(figure).sorted().toArray();
        if (values.length == 0) {
            throw new IllegalArgumentException("no runs");
        }
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}
