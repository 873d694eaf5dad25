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
 * <p>A row may run under a {@link Condition}: the proxy's faults are applied right after the counter is reset
 * and cleared as soon as the workload returns, so only the timed part meets them; each run of a row draws
 * from its own seed ({@link FaultPlan#forRun(int)}).
 *
 * <p>A reader whose run fails (wrong bytes or an exception) gets no further runs of that workload: the row
 * is reported FAILED with the reason, never with a time. Not thread-safe; runs one thing at a time.
 */
public final class ScenarioRunner {

    private final S3Target target;
    private final TrafficCounter traffic;
    private final FaultInjector faults;
    private final int warmups;
    private final int runs;

    /** A runner for clean rows only. */
    public ScenarioRunner(S3Target target, TrafficCounter traffic, int warmups, int runs) {
        this(target, traffic, FaultInjector.none(), warmups, runs);
    }

    public ScenarioRunner(S3Target target, TrafficCounter traffic, FaultInjector faults, int warmups, int runs) {
        this.target = requireNonNull(target, "target is null");
        this.traffic = requireNonNull(traffic, "traffic is null");
        this.faults = requireNonNull(faults, "faults is null");
        if (warmups < 0 || runs < 1) {
            throw new IllegalArgumentException("need warmups >= 0 and runs >= 1: " + warmups + ", " + runs);
        }
        this.warmups = warmups;
        this.runs = runs;
    }

    /** One row to measure: a reader on a workload under a condition. */
    public record Row(ReaderUnderTest reader, Workload workload, Condition condition) {
        public Row {
            requireNonNull(reader, "reader is null");
            requireNonNull(workload, "workload is null");
            requireNonNull(condition, "condition is null");
        }
    }

    /**
     * Every (workload, reader) row without faults where the workload {@linkplain Workload#runsOn runs on} the
     * reader, workloads in the order given, readers in the order given within each.
     */
    public List<RowResult> run(List<ReaderUnderTest> readers, List<Workload> workloads) {
        return run(rows(readers, workloads));
    }

    /** The clean rows {@link #run(List, List)} measures. */
    public static List<Row> rows(List<ReaderUnderTest> readers, List<Workload> workloads) {
        List<Row> rows = new ArrayList<>();
        for (Workload workload : workloads) {
            for (ReaderUnderTest reader : readers) {
                if (workload.runsOn(reader)) {
                    rows.add(new Row(reader, workload, Condition.CLEAN));
                }
            }
        }
        return rows;
    }

    /** The rows in the order given. */
    public List<RowResult> run(List<Row> rows) {
        List<RowResult> results = new ArrayList<>();
        try (ProgressBar bar = new ProgressBarBuilder()
                .setTaskName("Measuring")
                .setInitialMax((long) rows.size() * (warmups + runs))
                .setUnit(" runs", 1)
                .build()) {
            for (Row row : rows) {
                bar.setExtraMessage(row.reader().name() + " · " + row.workload().name()
                        + (row.condition().isClean()
                                ? ""
                                : " · " + row.condition().name()));
                results.add(runRow(row, bar));
            }
        }
        return results;
    }

    private RowResult runRow(Row row, ProgressBar bar) {
        String reader = row.reader().name();
        String workload = row.workload().name();
        String condition = row.condition().name();
        List<RunSample> samples = new ArrayList<>();
        for (int i = 0; i < warmups + runs; i++) {
            boolean warmup = i < warmups;
            try {
                samples.add(runOnce(row, i, warmup, warmup ? i + 1 : i - warmups + 1));
                bar.step();
            } catch (Exception | AssertionError e) {
                bar.stepBy(warmups + runs - i);
                System.err.println("\n" + reader + " failed " + workload + " (" + condition + "):");
                e.printStackTrace(); // the row says what failed; the trace says where
                return new RowResult(reader, workload, condition, Optional.of(describe(e)), List.of());
            }
        }
        return new RowResult(reader, workload, condition, Optional.empty(), samples);
    }

    private RunSample runOnce(Row row, int index, boolean warmup, int run) throws Exception {
        try (ReaderSession session = row.reader().openSession(target)) {
            traffic.reset();
            HeapProbe heap = HeapProbe.start();
            faults.apply(row.condition().faults().forRun(index));
            long start = System.nanoTime();
            Outcome outcome;
            try {
                outcome = row.workload().run(session);
            } finally {
                faults.clear();
            }
            long nanos = System.nanoTime() - start;
            long peakHeap = heap.finish();
            Traffic counted = traffic.read();
            return new RunSample(
                    row.reader().name(),
                    row.workload().name(),
                    row.condition().name(),
                    warmup,
                    run,
                    nanos,
                    counted,
                    outcome.neededBytes(),
                    peakHeap,
                    heap.baselineBytes(),
                    outcome.vectoredFallback(),
                    outcome.readNanos());
        }
    }

    private static String describe(Throwable failure) {
        if (failure instanceof WrongBytesException) {
            return "wrong bytes: " + failure.getMessage();
        }
        StringBuilder message = new StringBuilder(failure.toString());
        for (Throwable cause = failure.getCause();
                cause != null && cause != cause.getCause();
                cause = cause.getCause()) {
            message.append(" <- ").append(cause);
        }
        return message.toString();
    }
}
