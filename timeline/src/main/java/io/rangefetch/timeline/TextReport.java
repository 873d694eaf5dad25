package io.rangefetch.timeline;

import static io.rangefetch.timeline.Figures.bytes;
import static io.rangefetch.timeline.Figures.count;
import static io.rangefetch.timeline.Figures.duration;
import static io.rangefetch.timeline.Figures.format;
import static io.rangefetch.timeline.Figures.offset;
import static io.rangefetch.timeline.Figures.seconds;
import static java.util.Objects.requireNonNull;

import io.rangefetch.timeline.Analysis.GetTotals;
import io.rangefetch.timeline.Analysis.MetadataTotal;
import io.rangefetch.timeline.Analysis.StreamReads;
import io.rangefetch.timeline.Analysis.ThreadReads;
import io.rangefetch.timeline.Events.CacheEviction;
import io.rangefetch.timeline.Events.GovernorChange;
import io.rangefetch.timeline.Events.ReadWait;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The text report: first the totals a user asks first (how much of the readers' time went waiting on S3, and on
 * which phase; the GETs by cause and outcome; HEADs, LISTs, the cache), then the reads of the threads that waited
 * most, then the streams.
 *
 * <p>Design: one figure a line where a line can hold it, units on every figure, the time of an event as seconds from
 * the first rangefetch event (as on the chart's axis). A busy task thread makes thousands of reads: a thread lists
 * its {@value #READS_PER_THREAD} longest waits, in time order, and says what it left out, so the report stays
 * something a person reads.
 */
final class TextReport {
    static final int READS_PER_THREAD = 100;
    private static final int GOVERNOR_CHANGES_LISTED = 5;
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    private final Analysis analysis;
    private final int top;
    private final StringBuilder text = new StringBuilder();

    private TextReport(Analysis analysis, int top) {
        this.analysis = requireNonNull(analysis, "analysis is null");
        if (top < 1) {
            throw new IllegalArgumentException("top must be at least 1, was " + top);
        }
        this.top = top;
    }

    /**
     * The report of {@code analysis}.
     *
     * @param source what the events were read from, for the title
     * @param top how many threads and streams to list
     */
    static String render(Analysis analysis, String source, int top) {
        requireNonNull(source, "source is null");
        TextReport report = new TextReport(analysis, top);
        report.line("Rangefetch timeline of " + source);
        report.totals();
        report.threads();
        report.streams();
        return report.text.toString();
    }

    private void totals() {
        Events events = analysis.events();
        long first = events.first();
        line(format(
                "Recording: %s (%s to %s UTC); rangefetch's events from %s into it to %s; times below count from"
                        + " the first of them",
                seconds(events.recordingEnd() - events.recordingStart()),
                CLOCK.format(instant(events.recordingStart())),
                CLOCK.format(instant(events.recordingEnd())).substring(11),
                offset(first - events.recordingStart()),
                offset(events.last() - events.recordingStart())));
        readerTotals();
        getTotals(analysis.gets());
        metadataTotals();
        cacheTotals();
        governorChanges();
    }

    private void readerTotals() {
        List<ThreadReads> threads = analysis.threads();
        String leftOut = analysis.threadsLeftOut() == 0
                ? ""
                : format(" (--threads left out %s)", count(analysis.threadsLeftOut(), "other"));
        if (threads.isEmpty()) {
            line("Reads: no reader thread waited" + leftOut + " (a read served from the cache records nothing)");
            return;
        }
        WaitSplit waited = analysis.waited();
        int reads = threads.stream().mapToInt(thread -> thread.reads().size()).sum();
        line(format(
                "Reads: %s waited, in %s%s", count(threads.size(), "reader thread"), count(reads, "read"), leftOut));
        line(format(
                "  of %d threads' %s between their first and last read, %s waited on S3:",
                threads.size(), seconds(analysis.busy()), seconds(waited.total())));
        StringJoiner phases = new StringJoiner(", ", "  ", "");
        for (Phase phase : Phase.values()) {
            phases.add(seconds(waited.get(phase)) + " " + phase.label());
        }
        line(phases.toString());
    }

    private void getTotals(GetTotals gets) {
        if (gets.count() == 0) {
            line("GETs: none");
            return;
        }
        String firstByte = gets.firstBytes().isEmpty()
                ? "no answer arrived"
                : format(
                        "first byte median %s, p90 %s",
                        duration(gets.firstByte(0.5).orElseThrow()),
                        duration(gets.firstByte(0.9).orElseThrow()));
        line(format(
                "GETs: %d (%s, %s); %s requested, %s received; %s",
                gets.count(),
                count(gets.hedges(), "hedge"),
                count(gets.retries(), "retry", "retries"),
                bytes(gets.requested()),
                bytes(gets.received()),
                firstByte));
        line("  by cause:   " + joined(gets.byCause(), String::valueOf));
        line("  by outcome: " + joined(gets.byOutcome(), String::valueOf));
    }

    private void metadataTotals() {
        Map<String, MetadataTotal> metadata = analysis.metadata();
        if (metadata.isEmpty()) {
            line("HEADs and LISTs: none");
            return;
        }
        StringJoiner line = new StringJoiner("; ");
        metadata.forEach(
                (method, total) -> line.add(format("%ss: %d in %s", method, total.count(), seconds(total.nanos()))));
        line(line.toString());
    }

    private void cacheTotals() {
        Events events = analysis.events();
        long wasted = analysis.wastedByCause().values().stream()
                .mapToLong(Long::longValue)
                .sum();
        line(
                wasted == 0 && events.wasted().isEmpty()
                        ? "Prefetched bytes wasted: none"
                        : format(
                                "Prefetched bytes wasted: %s (%s)",
                                bytes(wasted), joined(analysis.wastedByCause(), Figures::bytes)));
        long evicted =
                events.evictions().stream().mapToLong(CacheEviction::bytes).sum();
        line(format(
                "Cache: %s (%s); budget full %s",
                count(events.evictions().size(), "eviction"),
                bytes(evicted),
                count(events.budgetFull().size(), "time")));
    }

    private void governorChanges() {
        List<GovernorChange> changes = analysis.events().governorChanges();
        if (changes.isEmpty()) {
            line("Throttle limit changes: none");
            return;
        }
        String listed = changes.stream()
                .limit(GOVERNOR_CHANGES_LISTED)
                .map(change -> format(
                        "%s %d -> %d at %s",
                        change.bucket(),
                        change.previousLimit(),
                        change.limit(),
                        offset(change.start() - analysis.origin())))
                .collect(Collectors.joining("; "));
        line(format(
                "Throttle limit changes: %d (%s%s)",
                changes.size(), listed, changes.size() > GOVERNOR_CHANGES_LISTED ? "; ..." : ""));
    }

    private void threads() {
        List<ThreadReads> threads = analysis.threads();
        if (threads.isEmpty()) {
            return;
        }
        line("");
        line(format(
                "Reader threads, most time waited first (%d of %d):", Math.min(top, threads.size()), threads.size()));
        for (ThreadReads thread : threads.subList(0, Math.min(top, threads.size()))) {
            thread(thread);
        }
    }

    private void thread(ThreadReads thread) {
        line("");
        line(thread.thread());
        StringJoiner phases = new StringJoiner(", ");
        for (Phase phase : Phase.values()) {
            if (thread.split().get(phase) > 0) {
                phases.add(seconds(thread.split().get(phase)) + " " + phase.label());
            }
        }
        line(format(
                "  %s waited %s of its %s from first read to last: %s",
                count(thread.reads().size(), "read"), seconds(thread.waited()), seconds(thread.span()), phases));
        line(format(
                "  %10s %7s  %-10s %12s %10s %10s  %-21s %s",
                "at", "stream", "kind", "position", "bytes", "wait", "waited on", "key"));
        List<ReadWait> reads = thread.reads();
        boolean[] shown = new boolean[reads.size()];
        IntStream.range(0, reads.size())
                .boxed()
                .sorted(Comparator.comparingLong((Integer i) -> reads.get(i).duration())
                        .reversed())
                .limit(READS_PER_THREAD)
                .forEach(i -> shown[i] = true);
        long leftOut = 0;
        for (int i = 0; i < reads.size(); i++) {
            ReadWait read = reads.get(i);
            if (!shown[i]) {
                leftOut += read.duration();
                continue;
            }
            line(format(
                    "  %10s %7s  %-10s %12d %10s %10s  %-21s %s",
                    offset(read.start() - analysis.origin()),
                    "#" + read.stream(),
                    read.kind(),
                    read.position(),
                    bytes(read.bytes()),
                    duration(read.duration()),
                    waitedOn(read),
                    location(read.bucket(), read.key())));
        }
        if (reads.size() > READS_PER_THREAD) {
            line(format(
                    "  ... and %s not listed (%s of wait)",
                    count(reads.size() - READS_PER_THREAD, "shorter read"), seconds(leftOut)));
        }
    }

    private void streams() {
        List<StreamReads> streams = analysis.streams();
        if (streams.isEmpty()) {
            return;
        }
        line("");
        line(format("Streams, most time waited first (%d of %d):", Math.min(top, streams.size()), streams.size()));
        line(format(
                "  %7s %10s %10s %6s %7s %10s  %s", "stream", "open for", "read", "reads", "waited", "wait", "key"));
        for (StreamReads stream : streams.subList(0, Math.min(top, streams.size()))) {
            String openFor = stream.openFor().isPresent()
                    ? seconds(stream.openFor().getAsLong())
                    : stream.opened().isPresent() ? "still open" : "?";
            line(format(
                    "  %7s %10s %10s %6s %7d %10s  %s",
                    "#" + stream.stream(),
                    openFor,
                    stream.closed().map(closed -> bytes(closed.bytesRead())).orElse("?"),
                    stream.closed()
                            .map(closed -> String.valueOf(closed.reads()))
                            .orElse("?"),
                    stream.reads().size(),
                    seconds(stream.waited()),
                    location(stream.bucket(), stream.key())));
        }
        if (streams.size() > top) {
            line("  ... and " + count(streams.size() - top, "more stream"));
        }
        line("  (read and reads: what the stream handed its caller, from its close; waited: its reads that waited)");
    }

    // the event's own answer; a recording of a version without the field falls back on the split's
    private static String waitedOn(ReadWait read) {
        return read.waitedOn().isEmpty() ? WaitSplit.of(read).largest().label() : read.waitedOn();
    }

    private static String location(String bucket, String key) {
        return bucket.isEmpty() ? key : "s3://" + bucket + "/" + key;
    }

    private static <V> String joined(Map<String, V> values, Function<V, String> value) {
        return values.entrySet().stream()
                .map(entry -> entry.getKey() + " " + value.apply(entry.getValue()))
                .collect(Collectors.joining(", "));
    }

    private static Instant instant(long epochNanos) {
        return Instant.ofEpochSecond(0, epochNanos);
    }

    private void line(String line) {
        text.append(line).append('\n');
    }
}
