package io.rangefetch.benchmarks.run;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * Every run of one workload with one reader. A row whose reader failed (wrong bytes, an exception) has a
 * failure and no measured runs: a wrong answer gets no time.
 */
public record RowResult(String reader, String workload, Optional<String> failure, List<RunSample> samples) {

    public RowResult {
        requireNonNull(reader, "reader is null");
        requireNonNull(workload, "workload is null");
        requireNonNull(failure, "failure is null");
        samples = List.copyOf(requireNonNull(samples, "samples is null"));
    }

    public boolean failed() {
        return failure.isPresent();
    }

    /** The runs that count: not warm-ups. */
    public List<RunSample> measured() {
        return samples.stream().filter(sample -> !sample.warmup()).toList();
    }
}
