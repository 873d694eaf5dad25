package io.rangefetch.benchmarks.run;

import static java.util.Objects.requireNonNull;

/**
 * One timed run of a workload with a reader.
 *
 * @param warmup whether the run was a warm-up, left out of the medians
 * @param peakHeapBytes the sum of the heap pools' peaks during the run
 * @param baselineHeapBytes the heap in use after the collection just before the run
 */
public record RunSample(String reader, String workload, boolean warmup, int run, long nanos, Traffic traffic,
        long neededBytes, long peakHeapBytes, long baselineHeapBytes, boolean vectoredFallback) {

    public RunSample {
        requireNonNull(reader, "reader is null");
        requireNonNull(workload, "workload is null");
        requireNonNull(traffic, "traffic is null");
    }

    /** The heap the run added at its peak over what was in use before it. */
    public long heapGrowthBytes() {
        return Math.max(0, peakHeapBytes - baselineHeapBytes);
    }
}
