package io.rangefetch.benchmarks.run;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * Every run of one workload with one reader under one condition. A row whose reader failed (wrong bytes, an
 * exception) has a failure and no measured runs: a wrong answer gets no time.
 *
 * @param condition the name of the {@link Condition} the row ran under
 */
public record RowResult(
        String reader, String workload, String condition, Optional<String> failure, List<RunSample> samples) {

    public RowResult {
        requireNonNull(reader, "reader is null");
        requireNonNull(workload, "workload is null");
        requireNonNull(condition, "condition is null");
        requireNonNull(failure, "failure is null");
        samples = List.copyOf(requireNonNull(samples, "samples is null"));
    }

    /** A row run without faults. */
    public RowResult(String reader, String workload, Optional<String> failure, List<RunSample> samples) {
        this(reader, workload, Condition.CLEAN.name(), failure, samples);
    }

    public boolean failed() {
        return failure.isPresent();
    }

    /** The runs that count: not warm-ups. */
    public List<RunSample> measured() {
        return samples.stream().filter(sample -> !sample.warmup()).toList();
    }
}
