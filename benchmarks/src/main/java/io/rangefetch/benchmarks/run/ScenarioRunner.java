package io.rangefetch.benchmarks.run;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.readers.S3Target;
import io.rangefetch.benchmarks.workload.Workload;
import io.rangefetch.benchmarks.workload.Workload.Outcome;
import io.rangefetch.benchmarks.workload.WrongBytesException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * Runs every workload with every reader against one target, warm-ups first, and records each run.
 *
 * <p>Each run gets a fresh {@link ReaderSession}, so no run profits from clients, caches or connections an
 * earlier one left; creating and closing the session are not timed. Around the timed part: the traffic
 * counter is reset and the heap collected just before, and both are read as soon as the workload returns,
 * before the session closes. All readers of a workload run before the next workload, so they meet the server
 * in the same state (its page cache warmed by the same reads).
 *
 * <p>A reader whose run fails (wrong bytes or an exception) gets no further runs of that workload: the row
 * is reported FAILED with the reason, never with a time. Not thread-safe; runs one thing at a time.
 */
public final class ScenarioRunner {

    private final S3Target target;
    private final TrafficCounter traffic;
    private final int warmups;
    private final int runs;

    public ScenarioRunner(S3Target target, TrafficCounter traffic, int warmups, int runs) {
        this.target = requireNonNull(target, "target is null");
        this.traffic = requireNonNull(traffic, "traffic is null");
        if (warmups < 0 || runs < 1) {
            throw new IllegalArgumentException("need warmups >= 0 and runs >= 1: " + warmups + ", " + runs);
        }
        this.warmups = warmups;
        this.runs = runs;
    }

    /** Every (workload, reader) row, workloads in the order given, readers in the order given within each. */
    public List<RowResult> run(List<ReaderUnderTest> readers, List<Workload> workloads) {
        List<RowResult> rows = new ArrayList<>();
        try (ProgressBar bar = new ProgressBarBuilder()
                .setTaskName("Measuring")
                .setInitialMax((long) readers.size() * workloads.size() * (warmups + runs))
                .setUnit(" runs", 1)
                .build()) {
            for (Workload workload : workloads) {
                for (ReaderUnderTest reader : readers) {
                    bar.setExtraMessage(reader.name() + " · " + workload.name());
                    rows.add(runRow(reader, workload, bar));
                }
            }
        }
        return rows;
    }

    private RowResult runRow(ReaderUnderTest reader, Workload workload, ProgressBar bar) {
        List<RunSample> samples = new ArrayList<>();
        for (int i = 0; i < warmups + runs; i++) {
            boolean warmup = i < warmups;
            try {
                samples.add(runOnce(reader, workload, warmup, warmup ? i + 1 : i - warmups + 1));
                bar.step();
            } catch (Exception | AssertionError e) {
                bar.stepBy(warmups + runs - i);
                System.err.println("\n" + reader.name() + " failed " + workload.name() + ":");
                e.printStackTrace(); // the row says what failed; the trace says where
                return new RowResult(reader.name(), workload.name(), Optional.of(describe(e)), List.of());
            }
        }
        return new RowResult(reader.name(), workload.name(), Optional.empty(), samples);
    }

    private RunSample runOnce(ReaderUnderTest reader, Workload workload, boolean warmup, int run) throws Exception {
        try (ReaderSession session = reader.openSession(target)) {
            traffic.reset();
            HeapProbe heap = HeapProbe.start();
            long start = System.nanoTime();
            Outcome outcome = workload.run(session);
            long nanos = System.nanoTime() - start;
            long peakHeap = heap.finish();
            Traffic counted = traffic.read();
            return new RunSample(reader.name(), workload.name(), warmup, run, nanos, counted, outcome.neededBytes(),
                    peakHeap, heap.baselineBytes(), outcome.vectoredFallback());
        }
    }

    private static String describe(Throwable failure) {
        if (failure instanceof WrongBytesException) {
            return "wrong bytes: " + failure.getMessage();
        }
        StringBuilder message = new StringBuilder(failure.toString());
        for (Throwable cause = failure.getCause(); cause != null && cause != cause.getCause();
                cause = cause.getCause()) {
            message.append(" <- ").append(cause);
        }
        return message.toString();
    }
}
