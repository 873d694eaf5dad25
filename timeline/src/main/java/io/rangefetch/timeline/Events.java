package io.rangefetch.timeline;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.stream.Stream;

/**
 * The rangefetch events of one recording, as values: one list per event type, each in start-time order. Times are
 * nanoseconds since the epoch, as the recording has them; {@code thread} is the Java name of the thread that
 * committed the event.
 *
 * <p>{@code recordingStart} and {@code recordingEnd} span every event of the file, the JDK's own included, so the
 * report can say where in the recording Rangefetch was busy.
 */
record Events(
        long recordingStart,
        long recordingEnd,
        List<GetAttempt> gets,
        List<ReadWait> waits,
        List<MetadataRequest> metadata,
        List<StreamOpened> opened,
        List<StreamClosed> closed,
        List<PredictionWasted> wasted,
        List<CacheEviction> evictions,
        List<BudgetFull> budgetFull,
        List<GovernorChange> governorChanges) {

    Events {
        gets = List.copyOf(gets);
        waits = List.copyOf(waits);
        metadata = List.copyOf(metadata);
        opened = List.copyOf(opened);
        closed = List.copyOf(closed);
        wasted = List.copyOf(wasted);
        evictions = List.copyOf(evictions);
        budgetFull = List.copyOf(budgetFull);
        governorChanges = List.copyOf(governorChanges);
    }

    boolean isEmpty() {
        return spans().findAny().isEmpty();
    }

    /** When the first rangefetch event began; the report's and the chart's time zero. */
    long first() {
        return spans().mapToLong(Span::start).min().orElse(recordingStart);
    }

    /** When the last rangefetch event ended. */
    long last() {
        return spans().mapToLong(Span::end).max().orElse(recordingEnd);
    }

    private Stream<Span> spans() {
        return Stream.of(gets, waits, metadata, opened, closed, wasted, evictions, budgetFull, governorChanges)
                .flatMap(List::stream);
    }

    /** What every event has: when it began and ended (the same instant for an event without a duration). */
    interface Span {
        long start();

        long end();

        default long duration() {
            return end() - start();
        }
    }

    /** {@code rangefetch.GetAttempt}: one GET sent, from the send until its body was read, cut or failed. */
    record GetAttempt(
            String thread,
            long start,
            long end,
            String bucket,
            String key,
            String range,
            long requested,
            long received,
            long firstByte,
            int attempt,
            boolean hedge,
            String cause,
            String outcome,
            int status)
            implements Span {
        GetAttempt {
            requireNonNull(thread, "thread is null");
            requireNonNull(key, "key is null");
            requireNonNull(cause, "cause is null");
            requireNonNull(outcome, "outcome is null");
        }

        /** Whether an answer's head arrived ({@code firstByte} is -1 when none did). */
        boolean answered() {
            return firstByte >= 0;
        }
    }

    /** {@code rangefetch.ReadWait}: a read that waited, on the reader's thread; the phases are nanoseconds. */
    record ReadWait(
            String thread,
            long start,
            long end,
            long stream,
            String bucket,
            String key,
            String kind,
            long position,
            long bytes,
            String waitedOn,
            long queue,
            long throttle,
            long firstByte,
            long transfer,
            long backoff,
            boolean joined,
            long waited)
            implements Span {
        ReadWait {
            requireNonNull(thread, "thread is null");
            requireNonNull(key, "key is null");
            requireNonNull(kind, "kind is null");
            requireNonNull(waitedOn, "waitedOn is null");
        }

        /**
         * The read's waits, summed: a read may wait several times (for each block it copies from), and its event
         * spans the first wait to the last. Recordings made before the field existed give the span.
         */
        @Override
        public long duration() {
            return waited;
        }
    }

    /** {@code rangefetch.MetadataRequest}: one HEAD or LIST attempt. */
    record MetadataRequest(
            String thread, long start, long end, String method, String bucket, String key, int attempt, String outcome)
            implements Span {
        MetadataRequest {
            requireNonNull(method, "method is null");
        }
    }

    /** {@code rangefetch.StreamOpened}. */
    record StreamOpened(String thread, long start, long end, long stream, String bucket, String key, long length)
            implements Span {
        StreamOpened {
            requireNonNull(thread, "thread is null");
            requireNonNull(key, "key is null");
        }
    }

    /** {@code rangefetch.StreamClosed}: its duration is the time the stream was open. */
    record StreamClosed(
            String thread,
            long start,
            long end,
            long stream,
            String bucket,
            String key,
            long bytesRead,
            long reads,
            long cacheHits)
            implements Span {
        StreamClosed {
            requireNonNull(key, "key is null");
        }
    }

    /** {@code rangefetch.PredictionWasted}: prefetched bytes that left the cache unread. */
    record PredictionWasted(long start, long end, String key, long bytes, String cause, String why) implements Span {
        PredictionWasted {
            requireNonNull(cause, "cause is null");
        }
    }

    /** {@code rangefetch.CacheEviction}. */
    record CacheEviction(long start, long end, String key, long bytes, boolean forPrefetch) implements Span {}

    /** {@code rangefetch.BudgetFull}. */
    record BudgetFull(long start, long end, long wanted, long inUse, long budget, boolean forPrefetch)
            implements Span {}

    /** {@code rangefetch.GovernorChange}: a bucket's throttle limit moved. */
    record GovernorChange(long start, long end, String bucket, int previousLimit, int limit, int inFlight)
            implements Span {
        GovernorChange {
            requireNonNull(bucket, "bucket is null");
        }
    }
}
