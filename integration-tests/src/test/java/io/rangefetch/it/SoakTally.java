package io.rangefetch.it;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * What the fault soak's readers did, counted as they go: reads by kind and by outcome, the bytes checked, the
 * streams opened, the cache's fill as sampled after each read, and every failure (wrong bytes, an exception that
 * no fault excuses) with what led to it. Thread-safe; read it once the readers have stopped.
 */
final class SoakTally {
    /** The outcome of a read that returned the right bytes. */
    static final String OK = "ok";
    /** Failures kept word for word; more are only counted. */
    private static final int FAILURES_KEPT = 20;

    private final Map<ReadKind, Map<String, LongAdder>> outcomes = new EnumMap<>(ReadKind.class);
    private final LongAdder bytesVerified = new LongAdder();
    private final LongAdder vectoredRanges = new LongAdder();
    private final LongAdder streams = new LongAdder();
    private final LongAdder firstReads = new LongAdder();
    private final LongAdder overwrites = new LongAdder();
    private final LongAccumulator maxSampledCache = new LongAccumulator(Math::max, 0);
    private final LongAdder failureCount = new LongAdder();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> excused = new ConcurrentLinkedQueue<>();

    SoakTally() {
        for (ReadKind kind : ReadKind.values()) {
            outcomes.put(kind, new ConcurrentHashMap<>());
        }
    }

    /** A read of {@code kind} ended with {@code outcome}: {@link #OK} or the simple name of what it threw. */
    void read(ReadKind kind, String outcome) {
        outcomes.get(kind).computeIfAbsent(outcome, any -> new LongAdder()).increment();
    }

    void verified(long bytes) {
        bytesVerified.add(bytes);
    }

    void vectoredRanges(int count) {
        vectoredRanges.add(count);
    }

    void streamOpened() {
        streams.increment();
    }

    void firstRead() {
        firstReads.increment();
    }

    void overwritten() {
        overwrites.increment();
    }

    void sampleCache(long bytes) {
        maxSampledCache.accumulate(bytes);
    }

    void fail(String what) {
        failureCount.increment();
        if (failures.size() < FAILURES_KEPT) {
            failures.add(what);
        }
    }

    /** An exception the faults excuse, kept word for word (the first few) so that the summary shows why. */
    void excused(String what) {
        if (excused.size() < FAILURES_KEPT) {
            excused.add(what);
        }
    }

    boolean failed() {
        return failureCount.sum() > 0;
    }

    List<String> failures() {
        List<String> kept = new ArrayList<>(failures);
        long more = failureCount.sum() - kept.size();
        if (more > 0) {
            kept.add("... and " + more + " more");
        }
        return kept;
    }

    long reads() {
        return outcomes.values().stream()
                .flatMap(byOutcome -> byOutcome.values().stream())
                .mapToLong(LongAdder::sum)
                .sum();
    }

    long reads(ReadKind kind) {
        return outcomes.get(kind).values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Reads of every kind that ended with {@code outcome}. */
    long outcomes(String outcome) {
        return outcomes.values().stream()
                .map(byOutcome -> byOutcome.get(outcome))
                .filter(count -> count != null)
                .mapToLong(LongAdder::sum)
                .sum();
    }

    /** Every outcome but {@link #OK} and those named, summed over kinds. */
    long outcomesOtherThan(String... excused) {
        List<String> skipped = new ArrayList<>(List.of(excused));
        skipped.add(OK);
        return outcomes.values().stream()
                .flatMap(byOutcome -> byOutcome.entrySet().stream())
                .filter(entry -> !skipped.contains(entry.getKey()))
                .mapToLong(entry -> entry.getValue().sum())
                .sum();
    }

    long bytesVerified() {
        return bytesVerified.sum();
    }

    long maxSampledCache() {
        return maxSampledCache.get();
    }

    long overwrites() {
        return overwrites.sum();
    }

    /** The counts, a few lines for the summary block: {@code label  value}. */
    Map<String, String> lines() {
        Map<String, String> lines = new LinkedHashMap<>();
        lines.put(
                "reads",
                reads() + " (" + firstReads.sum() + " of them a stream's first, on " + streams.sum() + " streams)");
        lines.put(
                "reads by kind",
                outcomes.keySet().stream().map(kind -> kind + " " + reads(kind)).collect(Collectors.joining(", "))
                        + " (" + vectoredRanges.sum() + " vectored ranges)");
        for (ReadKind kind : ReadKind.values()) {
            lines.put("  outcomes " + kind, describe(outcomes.get(kind)));
        }
        lines.put("bytes verified", bytesVerified.sum() + " (" + mib(bytesVerified.sum()) + ")");
        lines.put("overwrites", String.valueOf(overwrites.sum()));
        lines.put("failures", String.valueOf(failureCount.sum()));
        int n = 0;
        for (String what : excused) {
            lines.put("  excused " + ++n, what);
        }
        return lines;
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }

    private static String describe(Map<String, LongAdder> byOutcome) {
        Map<String, Long> sorted = new TreeMap<>();
        byOutcome.forEach((outcome, count) -> sorted.put(outcome, count.sum()));
        return sorted.isEmpty() ? "none" : sorted.toString();
    }
}
