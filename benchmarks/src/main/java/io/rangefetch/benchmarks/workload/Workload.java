package io.rangefetch.benchmarks.workload;

import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import java.io.IOException;
import java.util.List;

/**
 * One access pattern an engine puts on S3, run against one reader. A run opens what it needs from the
 * session, reads, and checks every byte (or decoded value) it got against the generator: a reader that hands
 * back wrong data fails with {@link WrongBytesException} instead of getting a time.
 *
 * <p>Implementations are immutable and may be run any number of times, one run at a time.
 */
public interface Workload {

    /** The row name in tables, charts and {@code --workloads}, e.g. {@code "projection"}. */
    String name();

    /** One line on what the workload reads, for the report. */
    String description();

    /** The least a modelled network lets this workload take; see {@link LowerBound}. */
    LowerBound lowerBound();

    /**
     * Whether the workload applies to {@code reader}: one that reads an Iceberg table runs only on FileIOs. The
     * runner leaves the other rows out rather than failing them.
     */
    default boolean runsOn(ReaderUnderTest reader) {
        return true;
    }

    /** Runs the workload once; what it returns is valid only if it returns normally. */
    Outcome run(ReaderSession session) throws IOException;

    /**
     * What a run found out besides its time.
     *
     * @param neededBytes the bytes the workload itself needed (footers, chunks, ranges), however many the
     *     reader fetched
     * @param vectoredFallback whether a vectored read ran as the contract's positioned-read fallback because
     *     the reader has no vectored API of its own
     * @param readNanos how long each read call took, for workloads that time them one by one (in no
     *     particular order); empty for the others
     */
    record Outcome(long neededBytes, boolean vectoredFallback, List<Long> readNanos) {

        public Outcome {
            if (neededBytes < 0) {
                throw new IllegalArgumentException("negative neededBytes " + neededBytes);
            }
            readNanos = List.copyOf(readNanos);
        }

        public Outcome(long neededBytes, boolean vectoredFallback) {
            this(neededBytes, vectoredFallback, List.of());
        }

        public static Outcome needed(long neededBytes) {
            return new Outcome(neededBytes, false);
        }
    }
}
