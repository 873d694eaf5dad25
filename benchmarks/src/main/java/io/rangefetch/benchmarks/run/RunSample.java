package io.rangefetch.benchmarks.run;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One timed run of a workload with a reader.
 *
 * @param condition the name of the {@link Condition} it ran under ({@code "clean"} for no faults)
 * @param warmup whether the run was a warm-up, left out of the medians
 * @param peakHeapBytes the sum of the heap pools' peaks during the run
 * @param baselineHeapBytes the heap in use after the collection just before the run
 * @param readNanos each read call's time, where the workload times them (see {@code Workload.Outcome})
 */
public record RunSample(
        String reader,
        String workload,
        String condition,
        boolean warmup,
        int run,
        long nanos,
        Traffic traffic,
        long neededBytes,
        long peakHeapBytes,
        long baselineHeapBytes,
        boolean vectoredFallback,
        List<Long> readNanos) {

    public RunSample {
        requireNonNull(reader, "reader is null");
        requireNonNull(workload, "workload is null");
        // results files written before conditions and read times existed have neither
        condition = condition == null ? Condition.CLEAN.name() : condition;
        requireNonNull(traffic, "traffic is null");
        readNanos = readNanos == null ? List.of() : List.copyOf(readNanos);
    }

    /** The heap the run added at its peak over what was in use before it. */
    public long heapGrowthBytes() {
        return Math.max(0, peakHeapBytes - baselineHeapBytes);
    }
}
