package io.rangefetch.timeline;

import static java.util.Objects.requireNonNull;

import io.rangefetch.timeline.Events.GetAttempt;
import io.rangefetch.timeline.Events.MetadataRequest;
import io.rangefetch.timeline.Events.PredictionWasted;
import io.rangefetch.timeline.Events.ReadWait;
import io.rangefetch.timeline.Events.StreamClosed;
import io.rangefetch.timeline.Events.StreamOpened;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * What a recording says: the totals a user asks first, the reads of each reader thread and of each stream, and the
 * GETs of each sending thread. The text report and the chart both draw from one analysis.
 *
 * <p>Design: the reader threads are those that committed a {@code ReadWait}: the threads of the engine's tasks.
 * {@code --threads} narrows them (one stage's tasks, one executor's), and with them the streams, which are kept when
 * one of their events is on a chosen thread; the GETs, HEADs and the cache's events are the process's, sent and
 * recorded on threads of Rangefetch's own, and are never narrowed. A thread's busy time is the span from its first
 * waiting read to the end of its last, the nearest the events come to "task time": a read served from the cache
 * records nothing.
 *
 * @param events the recording's events
 * @param threads the reader threads chosen, most time waited first
 * @param streams the streams read by them, most time waited first
 * @param waited the chosen threads' waits, by phase
 * @param gets the GETs' figures
 * @param getsByThread the GETs by the thread that committed them, threads in name order
 * @param metadata HEAD and LIST figures, by method in name order
 * @param wastedByCause prefetched bytes that left the cache unread, by the cause that fetched them, most first
 * @param threadsLeftOut reader threads {@code --threads} left out
 */
record Analysis(
        Events events,
        List<ThreadReads> threads,
        List<StreamReads> streams,
        WaitSplit waited,
        GetTotals gets,
        Map<String, List<GetAttempt>> getsByThread,
        Map<String, MetadataTotal> metadata,
        Map<String, Long> wastedByCause,
        int threadsLeftOut) {

    Analysis {
        requireNonNull(events, "events is null");
        threads = List.copyOf(threads);
        streams = List.copyOf(streams);
        requireNonNull(waited, "waited is null");
        requireNonNull(gets, "gets is null");
        getsByThread = ordered(getsByThread);
        metadata = ordered(metadata);
        wastedByCause = ordered(wastedByCause);
    }

    /** Analyses {@code events}, the reader threads narrowed to those whose names {@code readerThreads} accepts. */
    static Analysis of(Events events, Predicate<String> readerThreads) {
        requireNonNull(events, "events is null");
        requireNonNull(readerThreads, "readerThreads is null");
        Map<String, List<ReadWait>> byThread = events.waits().stream()
                .collect(Collectors.groupingBy(ReadWait::thread, LinkedHashMap::new, Collectors.toList()));
        List<ThreadReads> threads = byThread.entrySet().stream()
                .filter(entry -> readerThreads.test(entry.getKey()))
                .map(entry -> new ThreadReads(entry.getKey(), entry.getValue()))
                .sorted(Comparator.comparingLong(ThreadReads::waited).reversed().thenComparing(ThreadReads::thread))
                .toList();
        List<ReadWait> chosenWaits =
                threads.stream().flatMap(thread -> thread.reads().stream()).toList();
        return new Analysis(
                events,
                threads,
                streams(events, chosenWaits, readerThreads),
                WaitSplit.sum(chosenWaits),
                GetTotals.of(events.gets()),
                events.gets().stream()
                        .collect(Collectors.groupingBy(GetAttempt::thread, TreeMap::new, Collectors.toList())),
                events.metadata().stream()
                        .collect(Collectors.groupingBy(
                                MetadataRequest::method,
                                TreeMap::new,
                                Collectors.collectingAndThen(Collectors.toList(), MetadataTotal::of))),
                mostFirst(events.wasted().stream()
                        .collect(Collectors.groupingBy(
                                PredictionWasted::cause, Collectors.summingLong(PredictionWasted::bytes)))),
                byThread.size() - threads.size());
    }

    /** When the analysis' time zero is: the first rangefetch event's start, in epoch nanoseconds. */
    long origin() {
        return events.first();
    }

    /** The chosen threads' busy time: the sum of each one's span from its first read to its last. */
    long busy() {
        return threads.stream().mapToLong(ThreadReads::span).sum();
    }

    private static List<StreamReads> streams(
            Events events, List<ReadWait> chosenWaits, Predicate<String> readerThreads) {
        Map<Long, StreamOpened> opened = new LinkedHashMap<>();
        for (StreamOpened event : events.opened()) {
            opened.putIfAbsent(event.stream(), event);
        }
        Map<Long, StreamClosed> closed = new LinkedHashMap<>();
        for (StreamClosed event : events.closed()) {
            closed.putIfAbsent(event.stream(), event);
        }
        Map<Long, List<ReadWait>> reads = chosenWaits.stream()
                .sorted(Comparator.comparingLong(ReadWait::start))
                .collect(Collectors.groupingBy(ReadWait::stream, LinkedHashMap::new, Collectors.toList()));
        Set<Long> ids = new LinkedHashSet<>(opened.keySet());
        ids.addAll(closed.keySet());
        ids.addAll(reads.keySet());
        List<StreamReads> streams = new ArrayList<>();
        for (long id : ids) {
            Optional<StreamOpened> open = Optional.ofNullable(opened.get(id));
            Optional<StreamClosed> close = Optional.ofNullable(closed.get(id));
            List<ReadWait> itsReads = reads.getOrDefault(id, List.of());
            boolean chosen = !itsReads.isEmpty()
                    || open.map(event -> readerThreads.test(event.thread())).orElse(false)
                    || close.map(event -> readerThreads.test(event.thread())).orElse(false);
            if (chosen) {
                streams.add(new StreamReads(id, open, close, itsReads));
            }
        }
        streams.sort(Comparator.comparingLong(StreamReads::waited).reversed().thenComparingLong(StreamReads::stream));
        return List.copyOf(streams);
    }

    // an unmodifiable copy that keeps the order the map was built in (Map.copyOf would not)
    private static <V> Map<String, V> ordered(Map<String, V> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }

    private static Map<String, Long> mostFirst(Map<String, Long> values) {
        return values.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
    }

    /** The waiting reads of one reader thread, in time order. */
    record ThreadReads(String thread, List<ReadWait> reads, WaitSplit split) {
        ThreadReads(String thread, List<ReadWait> reads) {
            this(thread, reads, WaitSplit.sum(reads));
        }

        ThreadReads {
            requireNonNull(thread, "thread is null");
            reads = reads.stream()
                    .sorted(Comparator.comparingLong(ReadWait::start))
                    .toList();
            if (reads.isEmpty()) {
                throw new IllegalArgumentException("a reader thread has at least one read: " + thread);
            }
            requireNonNull(split, "split is null");
        }

        long waited() {
            return split.total();
        }

        long first() {
            return reads.get(0).start();
        }

        long last() {
            return reads.stream().mapToLong(ReadWait::end).max().orElseThrow();
        }

        /** From the start of its first waiting read to the end of its last. */
        long span() {
            return last() - first();
        }
    }

    /**
     * One stream: its open and close events when the recording has them (it may have begun after the open or
     * ended before the close), and its reads on the chosen threads.
     */
    record StreamReads(
            long stream, Optional<StreamOpened> opened, Optional<StreamClosed> closed, List<ReadWait> reads) {
        StreamReads {
            requireNonNull(opened, "opened is null");
            requireNonNull(closed, "closed is null");
            reads = List.copyOf(reads);
        }

        String key() {
            return opened.map(StreamOpened::key)
                    .or(() -> closed.map(StreamClosed::key))
                    .or(() -> reads.stream().map(ReadWait::key).findFirst())
                    .orElse("");
        }

        String bucket() {
            return opened.map(StreamOpened::bucket)
                    .or(() -> closed.map(StreamClosed::bucket))
                    .or(() -> reads.stream().map(ReadWait::bucket).findFirst())
                    .orElse("");
        }

        long waited() {
            return reads.stream().mapToLong(ReadWait::duration).sum();
        }

        /** How long it was open, when the recording saw it closed. */
        OptionalLong openFor() {
            return closed.map(event -> OptionalLong.of(event.duration())).orElse(OptionalLong.empty());
        }
    }

    /**
     * The GETs' figures.
     *
     * @param byCause count by cause, most first
     * @param byOutcome count by outcome, most first
     * @param hedges GETs sent as hedges
     * @param retries GETs that were a second or later attempt of their request
     * @param firstBytes the first-byte times of the answered GETs, ascending
     */
    record GetTotals(
            int count,
            Map<String, Long> byCause,
            Map<String, Long> byOutcome,
            long hedges,
            long retries,
            long requested,
            long received,
            List<Long> firstBytes) {

        static GetTotals of(List<GetAttempt> gets) {
            return new GetTotals(
                    gets.size(),
                    counted(gets, GetAttempt::cause),
                    counted(gets, GetAttempt::outcome),
                    gets.stream().filter(GetAttempt::hedge).count(),
                    gets.stream().filter(get -> get.attempt() > 1).count(),
                    gets.stream().mapToLong(GetAttempt::requested).sum(),
                    gets.stream().mapToLong(GetAttempt::received).sum(),
                    gets.stream()
                            .filter(GetAttempt::answered)
                            .map(GetAttempt::firstByte)
                            .sorted()
                            .toList());
        }

        GetTotals {
            byCause = ordered(byCause);
            byOutcome = ordered(byOutcome);
            firstBytes = List.copyOf(firstBytes);
        }

        /**
         * The first-byte time below which {@code fraction} of the answered GETs fall, by the nearest-rank method (a
         * value some GET had); empty when none was answered.
         */
        OptionalLong firstByte(double fraction) {
            if (firstBytes.isEmpty()) {
                return OptionalLong.empty();
            }
            int rank = (int) Math.ceil(fraction * firstBytes.size());
            return OptionalLong.of(firstBytes.get(Math.max(0, Math.min(firstBytes.size(), rank) - 1)));
        }

        private static Map<String, Long> counted(List<GetAttempt> gets, Function<GetAttempt, String> by) {
            return mostFirst(gets.stream().collect(Collectors.groupingBy(by, Collectors.counting())));
        }
    }

    /** One method's (HEAD's or LIST's) requests: how many, and the sum of their durations. */
    record MetadataTotal(int count, long nanos) {
        static MetadataTotal of(List<MetadataRequest> requests) {
            return new MetadataTotal(
                    requests.size(),
                    requests.stream().mapToLong(MetadataRequest::duration).sum());
        }
    }
}
