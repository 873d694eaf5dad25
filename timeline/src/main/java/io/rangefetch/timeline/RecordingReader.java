package io.rangefetch.timeline;

import static java.util.Objects.requireNonNull;

import io.rangefetch.timeline.Events.BudgetFull;
import io.rangefetch.timeline.Events.CacheEviction;
import io.rangefetch.timeline.Events.GetAttempt;
import io.rangefetch.timeline.Events.GovernorChange;
import io.rangefetch.timeline.Events.MetadataRequest;
import io.rangefetch.timeline.Events.PredictionWasted;
import io.rangefetch.timeline.Events.ReadWait;
import io.rangefetch.timeline.Events.Span;
import io.rangefetch.timeline.Events.StreamClosed;
import io.rangefetch.timeline.Events.StreamOpened;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Loads the rangefetch events of a JFR file into {@link Events}.
 *
 * <p>Design: events are found by name, not by class, so this module needs nothing of core's and reads recordings
 * of other versions. A field a version lacks reads as its default (empty, 0, -1 for an unknown first byte) instead
 * of failing the whole file: a timeline with one column blank is still worth having. Every event of the file is
 * visited once (the JDK's reader parses them all anyway) to learn the recording's own span.
 *
 * <p>Errors are translated here, once: a missing file is a {@link FileNotFoundException}, anything else that
 * stops the file from being read an {@link IOException}, each with a message that names the file and says what to
 * check.
 */
final class RecordingReader {
    static final String PREFIX = "rangefetch.";
    private static final String NO_THREAD = "(no thread)";

    private final List<GetAttempt> gets = new ArrayList<>();
    private final List<ReadWait> waits = new ArrayList<>();
    private final List<MetadataRequest> metadata = new ArrayList<>();
    private final List<StreamOpened> opened = new ArrayList<>();
    private final List<StreamClosed> closed = new ArrayList<>();
    private final List<PredictionWasted> wasted = new ArrayList<>();
    private final List<CacheEviction> evictions = new ArrayList<>();
    private final List<BudgetFull> budgetFull = new ArrayList<>();
    private final List<GovernorChange> governorChanges = new ArrayList<>();
    private long recordingStart = Long.MAX_VALUE;
    private long recordingEnd = Long.MIN_VALUE;

    private RecordingReader() {}

    /** Reads the recording at {@code file}. */
    static Events read(Path file) throws IOException {
        requireNonNull(file, "file is null");
        if (!Files.exists(file)) {
            throw new FileNotFoundException(file + ": no such file");
        }
        if (Files.isDirectory(file)) {
            throw new IOException(file + " is a directory; give the recording's file (.jfr)");
        }
        if (!Files.isReadable(file)) {
            throw new IOException(file + " cannot be read: check its permissions");
        }
        RecordingReader reader = new RecordingReader();
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                reader.add(recording.readEvent());
            }
        } catch (IOException | RuntimeException e) {
            // the JDK's parser answers a file that is not a recording with an IOException, and may answer a
            // damaged one (cut short by a killed JVM) with either
            throw new IOException(
                    file + " is not a JFR recording, or is damaged (" + e.getMessage()
                            + "); give the file -XX:StartFlightRecording or jcmd <pid> JFR.dump wrote",
                    e);
        }
        return reader.events();
    }

    private void add(RecordedEvent event) {
        long start = nanos(event.getStartTime());
        long end = nanos(event.getEndTime());
        recordingStart = Math.min(recordingStart, start);
        recordingEnd = Math.max(recordingEnd, end);
        String name = event.getEventType().getName();
        if (!name.startsWith(PREFIX)) {
            return;
        }
        switch (name.substring(PREFIX.length())) {
            case "GetAttempt" ->
                gets.add(new GetAttempt(
                        thread(event),
                        start,
                        end,
                        text(event, "bucket"),
                        text(event, "key"),
                        text(event, "range"),
                        number(event, "requested"),
                        number(event, "received"),
                        timespan(event, "firstByte", -1),
                        (int) number(event, "attempt"),
                        flag(event, "hedge"),
                        text(event, "cause"),
                        text(event, "outcome"),
                        (int) number(event, "status")));
            case "ReadWait" ->
                waits.add(new ReadWait(
                        thread(event),
                        start,
                        end,
                        number(event, "stream"),
                        text(event, "bucket"),
                        text(event, "key"),
                        text(event, "kind"),
                        number(event, "position"),
                        number(event, "bytes"),
                        text(event, "waitedOn"),
                        timespan(event, "queue", 0),
                        timespan(event, "throttle", 0),
                        timespan(event, "firstByte", 0),
                        timespan(event, "transfer", 0),
                        timespan(event, "backoff", 0),
                        flag(event, "joined"),
                        event.hasField("waited") ? timespan(event, "waited", 0) : end - start));
            case "MetadataRequest" ->
                metadata.add(new MetadataRequest(
                        thread(event),
                        start,
                        end,
                        text(event, "method"),
                        text(event, "bucket"),
                        text(event, "key"),
                        (int) number(event, "attempt"),
                        text(event, "outcome")));
            case "StreamOpened" ->
                opened.add(new StreamOpened(
                        thread(event),
                        start,
                        end,
                        number(event, "stream"),
                        text(event, "bucket"),
                        text(event, "key"),
                        number(event, "length")));
            case "StreamClosed" ->
                closed.add(new StreamClosed(
                        thread(event),
                        start,
                        end,
                        number(event, "stream"),
                        text(event, "bucket"),
                        text(event, "key"),
                        number(event, "bytesRead"),
                        number(event, "reads"),
                        number(event, "cacheHits")));
            case "PredictionWasted" ->
                wasted.add(new PredictionWasted(
                        start,
                        end,
                        text(event, "key"),
                        number(event, "bytes"),
                        text(event, "cause"),
                        text(event, "why")));
            case "CacheEviction" ->
                evictions.add(new CacheEviction(
                        start, end, text(event, "key"), number(event, "bytes"), flag(event, "forPrefetch")));
            case "BudgetFull" ->
                budgetFull.add(new BudgetFull(
                        start,
                        end,
                        number(event, "wanted"),
                        number(event, "inUse"),
                        number(event, "budget"),
                        flag(event, "forPrefetch")));
            case "GovernorChange" ->
                governorChanges.add(new GovernorChange(
                        start,
                        end,
                        text(event, "bucket"),
                        (int) number(event, "previousLimit"),
                        (int) number(event, "limit"),
                        (int) number(event, "inFlight")));
            default -> {
                // the factories' events, and any a later version adds: nothing in the timeline shows them
            }
        }
    }

    private Events events() {
        boolean none = recordingStart > recordingEnd;
        return new Events(
                none ? 0 : recordingStart,
                none ? 0 : recordingEnd,
                sorted(gets),
                sorted(waits),
                sorted(metadata),
                sorted(opened),
                sorted(closed),
                sorted(wasted),
                sorted(evictions),
                sorted(budgetFull),
                sorted(governorChanges));
    }

    // a file holds its events chunk by chunk and thread buffer by thread buffer: near time order, not in it
    private static <T extends Span> List<T> sorted(List<T> events) {
        events.sort(Comparator.comparingLong(Span::start).thenComparingLong(Span::end));
        return events;
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private static String thread(RecordedEvent event) {
        RecordedThread thread = event.getThread();
        if (thread == null) {
            return NO_THREAD;
        }
        String name = thread.getJavaName() != null ? thread.getJavaName() : thread.getOSName();
        return name != null ? name : NO_THREAD;
    }

    private static String text(RecordedEvent event, String field) {
        if (!event.hasField(field)) {
            return "";
        }
        String value = event.getString(field);
        return value != null ? value : "";
    }

    private static long number(RecordedEvent event, String field) {
        return event.hasField(field) ? event.getLong(field) : 0;
    }

    private static boolean flag(RecordedEvent event, String field) {
        return event.hasField(field) && event.getBoolean(field);
    }

    // through getDuration, which knows the field's unit, rather than the raw value
    private static long timespan(RecordedEvent event, String field, long absent) {
        return event.hasField(field) ? event.getDuration(field).toNanos() : absent;
    }
}
