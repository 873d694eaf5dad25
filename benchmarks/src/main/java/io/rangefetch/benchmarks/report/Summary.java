package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.RunSample;
import io.rangefetch.benchmarks.workload.Workload;
import io.rangefetch.testing.proxy.NetworkModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * Turns rows of runs into {@link ResultRow}s. {@link #measure} is the one place a row's medians are taken, for
 * every family; {@link #of} is the comparison's summary: each row's time over the reference reader's on the same
 * workload, and over the workload's lower bound on the modelled network.
 */
public final class Summary {

    private Summary() {}

    /**
     * The comparison's rows.
     *
     * @param network the model the proxy applied; empty when nothing was modelled (no ideal then)
     * @param referenceReader the reader the others are compared with; on a workload it did not run, the first
     *     reader in {@code rows} that ran it (the runner lists Rangefetch's readers first: RangefetchS3FileIO on a
     *     workload that needs a FileIO)
     */
    public static List<ResultRow> of(
            List<RowResult> rows, List<Workload> workloads, Optional<NetworkModel> network, String referenceReader) {
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
        Set<String> referenceRan = rows.stream()
                .filter(row -> row.reader().equals(referenceReader))
                .map(RowResult::workload)
                .collect(Collectors.toSet());
        for (RowResult row : rows) {
            if (!referenceRan.contains(row.workload()) && !row.failed()) {
                referenceSeconds.putIfAbsent(row.workload(), seconds(row));
            }
        }
        List<ResultRow> summary = new ArrayList<>();
        for (RowResult row : rows) {
            ResultRow measured = measure(row);
            if (measured.failed()) {
                summary.add(measured);
                continue;
            }
            double seconds = measured.seconds();
            Double ideal = network.flatMap(model -> lowerBound(byName, row.workload(), model, measured.neededBytes()))
                    .map(duration -> duration.toNanos() / 1e9)
                    .orElse(null);
            Double reference = referenceSeconds.get(row.workload());
            summary.add(measured.compared(
                    reference == null || reference == 0 ? null : seconds / reference,
                    ideal,
                    ideal == null || ideal == 0 ? null : seconds / ideal));
        }
        return summary;
    }

    /** {@code row}'s medians, under the name and condition it ran with. */
    public static ResultRow measure(RowResult row) {
        return measure(row, row.condition(), row.reader(), null);
    }

    /**
     * {@code row}'s medians over its measured runs (none for a failed row); the proxy's counts only where every
     * run was counted, read latencies only where the workload timed its reads.
     *
     * @param scenario the condition to report the row under
     * @param reader the reader's name to report
     * @param feature a resilience scenario's feature setting, or null
     */
    public static ResultRow measure(RowResult row, String scenario, String reader, String feature) {
        if (row.failed()) {
            return ResultRow.failed(
                    scenario, row.workload(), reader, feature, row.failure().get());
        }
        List<RunSample> runs = row.measured();
        boolean counted = runs.stream().allMatch(run -> run.traffic().known());
        List<Long> reads =
                runs.stream().flatMap(run -> run.readNanos().stream()).sorted().toList();
        return new ResultRow(
                scenario,
                row.workload(),
                reader,
                feature,
                ResultRow.OK,
                null,
                runs.size(),
                seconds(row),
                counted ? median(runs, run -> run.traffic().gets()) : null,
                counted ? median(runs, run -> run.traffic().heads()) : null,
                counted ? median(runs, run -> run.traffic().lists()) : null,
                counted ? median(runs, run -> run.traffic().bodyBytes()) : null,
                median(runs, RunSample::neededBytes),
                median(runs, RunSample::heapGrowthBytes),
                counted ? median(runs, run -> run.traffic().slowDowns()) : null,
                counted ? median(runs, run -> run.traffic().delayedFirstBytes()) : null,
                reads.isEmpty() ? null : percentile(reads, 0.5) / 1e6,
                reads.isEmpty() ? null : percentile(reads, 0.99) / 1e6,
                runs.stream().anyMatch(RunSample::vectoredFallback),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    private static Optional<Duration> lowerBound(
            Map<String, Workload> workloads, String name, NetworkModel model, long needed) {
        Workload workload = workloads.get(name);
        return workload == null ? Optional.empty() : workload.lowerBound().time(model, needed);
    }

    /** The median time of {@code row}'s measured runs, in seconds. */
    public static double seconds(RowResult row) {
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

    /** The nearest-rank percentile of sorted values: the smallest value at least {@code p} of them do not pass. */
    static long percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        int rank = (int) Math.ceil(p * sorted.size());
        return sorted.get(Math.max(rank, 1) - 1);
    }
}
