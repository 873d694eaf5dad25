package io.rangefetch.timeline;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.DataAmount;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.Timespan;

/**
 * A recording of Rangefetch's events with fixed field values: two reader threads, two sending threads, and one
 * of each of the cache's and the governor's events, as a run through Rangefetch would record them.
 *
 * <p>The figures the tests assert on are the fields set here. Durations are real (an event times itself from {@code
 * begin()} to {@code end()}), so a read's wait lasts {@link #READ_WAIT} of spinning, longer than the phases it is
 * given add up to, and no test asserts on a duration itself.
 */
final class SampleRecording {
    static final String READER = "Executor task launch worker for task 1.0 in stage 3.0 (TID 11)";
    // a name that must be escaped in XML
    static final String OTHER_READER = "reader <2> & \"friends\"";
    static final String FETCHER = "rangefetch-fetch-1";
    static final String EVENT_LOOP = "aws-java-sdk-NettyEventLoop-1-1";
    static final String BUCKET = "bkt";
    static final long KIB = 1024;
    static final long MIB = 1024 * KIB;
    static final long MICROS = 1_000;
    static final long MILLIS = 1_000_000;
    static final Duration READ_WAIT = Duration.ofMillis(2);

    private SampleRecording() {}

    // The events as core declares them (io.rangefetch.internal.events, documented in docs/OBSERVABILITY.md): the
    // timeline reads a recording by event and field names only, so these stand in for core's classes, which are
    // the engine's own. FlightRecorderEventsDocumentedTest in core holds both to the documented names and fields.
    @Name("rangefetch.GetAttempt")
    static final class GetAttemptEvent extends Event {
        String bucket;
        String key;
        String range;

        @DataAmount
        long requested;

        @DataAmount
        long received;

        @Timespan(Timespan.NANOSECONDS)
        long firstByte;

        int attempt;
        boolean hedge;
        String cause;
        String outcome;
        int status;
    }

    @Name("rangefetch.MetadataRequest")
    static final class MetadataRequestEvent extends Event {
        String method;
        String bucket;
        String key;
        int attempt;
        String outcome;
        int status;
    }

    @Name("rangefetch.ReadWait")
    static final class ReadWaitEvent extends Event {
        long stream;
        String bucket;
        String key;
        String kind;
        long position;

        @DataAmount
        long bytes;

        String waitedOn;

        @Timespan(Timespan.NANOSECONDS)
        long waited;

        @Timespan(Timespan.NANOSECONDS)
        long queue;

        @Timespan(Timespan.NANOSECONDS)
        long throttle;

        @Timespan(Timespan.NANOSECONDS)
        long firstByte;

        @Timespan(Timespan.NANOSECONDS)
        long transfer;

        @Timespan(Timespan.NANOSECONDS)
        long backoff;

        boolean joined;
    }

    @Name("rangefetch.StreamOpened")
    static final class StreamOpenedEvent extends Event {
        long stream;
        String bucket;
        String key;

        @DataAmount
        long length;
    }

    @Name("rangefetch.StreamClosed")
    static final class StreamClosedEvent extends Event {
        long stream;
        String bucket;
        String key;

        @DataAmount
        long bytesRead;

        long reads;
        long cacheHits;
    }

    @Name("rangefetch.FactoryOpened")
    static final class FactoryOpenedEvent extends Event {
        long factory;

        @DataAmount
        long memoryBudget;
    }

    @Name("rangefetch.FactoryClosed")
    static final class FactoryClosedEvent extends Event {
        long factory;
        String summary;
        long gets;

        @DataAmount
        long bytesFetched;

        @DataAmount
        long bytesServed;

        long cacheHits;
        long cacheMisses;

        @DataAmount
        long prefetchedUnread;

        long retries;
        long throttled;

        @DataAmount
        long cachePeak;
    }

    @Name("rangefetch.PredictionWasted")
    static final class PredictionWastedEvent extends Event {
        String bucket;
        String key;
        long rangeStart;

        @DataAmount
        long bytes;

        String cause;
        String why;
    }

    @Name("rangefetch.GovernorChange")
    static final class GovernorChangeEvent extends Event {
        String bucket;
        int previousLimit;
        int limit;
        int inFlight;
    }

    @Name("rangefetch.CacheEviction")
    static final class CacheEvictionEvent extends Event {
        String bucket;
        String key;
        long rangeStart;

        @DataAmount
        long bytes;

        String queue;
        boolean forPrefetch;
    }

    @Name("rangefetch.BudgetFull")
    static final class BudgetFullEvent extends Event {
        @DataAmount
        long wanted;

        @DataAmount
        long inUse;

        @DataAmount
        long budget;

        boolean forPrefetch;
    }

    /** Records the sample into {@code file}. */
    static void record(Path file) throws IOException, InterruptedException {
        try (Recording recording = new Recording()) {
            for (Class<? extends Event> type : List.of(
                    GetAttemptEvent.class,
                    MetadataRequestEvent.class,
                    ReadWaitEvent.class,
                    StreamOpenedEvent.class,
                    StreamClosedEvent.class,
                    FactoryOpenedEvent.class,
                    FactoryClosedEvent.class,
                    PredictionWastedEvent.class,
                    GovernorChangeEvent.class,
                    CacheEvictionEvent.class,
                    BudgetFullEvent.class)) {
                recording.enable(type);
            }
            recording.start();
            runOn("main-like", SampleRecording::factoryAndCache);
            runOn(READER, SampleRecording::firstReader);
            runOn(OTHER_READER, SampleRecording::secondReader);
            runOn(FETCHER, SampleRecording::fetcherGets);
            runOn(EVENT_LOOP, SampleRecording::eventLoopGets);
            recording.stop();
            recording.dump(file);
        }
    }

    /**
     * Stream 1 (closed) read three times, once after joining stream 2's GET; stream 2 opened and closed without a
     * wait of its own.
     */
    private static void firstReader() {
        StreamClosedEvent closed = new StreamClosedEvent();
        closed.begin();
        opened(1, "data/a.parquet");
        opened(2, "data/b.parquet");
        readWait(1, "data/a.parquet", "first", 0, 8 * KIB, "first byte", 10 * MICROS, 0, 200 * MICROS, 100 * MICROS, 0);
        readWait(
                1,
                "data/a.parquet",
                "streaming",
                8 * KIB,
                MIB,
                "transfer",
                0,
                50 * MICROS,
                0,
                300 * MICROS,
                20 * MICROS);
        ReadWaitEvent joined = readWaitEvent(
                1, "data/a.parquet", "positioned", 4 * MIB, 64 * KIB, "another stream's GET", 0, 0, 400 * MICROS, 0, 0);
        joined.joined = true;
        timed(joined);
        closed.end();
        closed.stream = 1;
        closed.bucket = BUCKET;
        closed.key = "data/a.parquet";
        closed.bytesRead = 3 * MIB;
        closed.reads = 7;
        closed.cacheHits = 4;
        closed.commit();
        StreamClosedEvent other = new StreamClosedEvent();
        other.stream = 2;
        other.bucket = BUCKET;
        other.key = "data/b.parquet";
        other.bytesRead = 0;
        other.commit();
    }

    /** Stream 3, still open at the end, read once. */
    private static void secondReader() {
        opened(3, "data/c.parquet");
        readWait(
                3,
                "data/c.parquet",
                "positioned",
                100,
                2 * MIB,
                "scheduler queue",
                500 * MICROS,
                100 * MICROS,
                0,
                0,
                300 * MICROS);
    }

    private static void fetcherGets() {
        get("demand", "complete", 1, false, 8 * KIB, 8 * KIB, 10 * MILLIS, 206);
        get("sequential prefetch", "complete", 1, false, MIB, MIB, 20 * MILLIS, 206);
        get("sequential prefetch", "hedge lost", 1, true, MIB, 64 * KIB, 30 * MILLIS, 206);
        get("demand", "throttled", 1, false, 4 * KIB, 0, 5 * MILLIS, 503);
        get("demand", "complete", 2, false, 4 * KIB, 4 * KIB, 40 * MILLIS, 206);
        get("footer", "failed", 1, false, 16 * KIB, 0, -1, 0);
        metadata("HEAD", "data/a.parquet");
        metadata("HEAD", "data/b.parquet");
        metadata("LIST", "data/");
    }

    private static void eventLoopGets() {
        get("format prediction", "complete", 1, false, 2 * MIB, 2 * MIB, 50 * MILLIS, 206);
    }

    private static void factoryAndCache() {
        FactoryOpenedEvent factory = new FactoryOpenedEvent();
        factory.factory = 1;
        factory.memoryBudget = 256 * MIB;
        factory.commit();
        wasted("sequential prefetch", MIB);
        wasted("sequential prefetch", MIB);
        wasted("format prediction", 512 * KIB);
        for (int i = 0; i < 3; i++) {
            CacheEvictionEvent eviction = new CacheEvictionEvent();
            eviction.bucket = BUCKET;
            eviction.key = "data/a.parquet";
            eviction.rangeStart = i * MIB;
            eviction.bytes = MIB;
            eviction.queue = "passed";
            eviction.commit();
        }
        BudgetFullEvent full = new BudgetFullEvent();
        full.wanted = 8 * MIB;
        full.inUse = 250 * MIB;
        full.budget = 256 * MIB;
        full.forPrefetch = true;
        full.commit();
        governor(64, 32);
        governor(32, 48);
    }

    private static void opened(long stream, String key) {
        StreamOpenedEvent opened = new StreamOpenedEvent();
        opened.stream = stream;
        opened.bucket = BUCKET;
        opened.key = key;
        opened.length = -1;
        opened.commit();
    }

    private static void readWait(
            long stream,
            String key,
            String kind,
            long position,
            long bytes,
            String waitedOn,
            long queue,
            long throttle,
            long firstByte,
            long transfer,
            long backoff) {
        timed(readWaitEvent(
                stream, key, kind, position, bytes, waitedOn, queue, throttle, firstByte, transfer, backoff));
    }

    private static ReadWaitEvent readWaitEvent(
            long stream,
            String key,
            String kind,
            long position,
            long bytes,
            String waitedOn,
            long queue,
            long throttle,
            long firstByte,
            long transfer,
            long backoff) {
        ReadWaitEvent wait = new ReadWaitEvent();
        wait.stream = stream;
        wait.bucket = BUCKET;
        wait.key = key;
        wait.kind = kind;
        wait.position = position;
        wait.bytes = bytes;
        wait.waitedOn = waitedOn;
        wait.queue = queue;
        wait.throttle = throttle;
        wait.firstByte = firstByte;
        wait.transfer = transfer;
        wait.backoff = backoff;
        return wait;
    }

    // the wait itself: a read's event lasts READ_WAIT, longer than the phases the sample gives it add up to
    private static void timed(ReadWaitEvent wait) {
        wait.waited = READ_WAIT.toNanos();
        wait.begin();
        spin(READ_WAIT);
        wait.end();
        wait.commit();
    }

    private static void get(
            String cause,
            String outcome,
            int attempt,
            boolean hedge,
            long requested,
            long received,
            long firstByte,
            int status) {
        GetAttemptEvent get = new GetAttemptEvent();
        get.begin();
        spin(Duration.ofMillis(1));
        get.end();
        get.bucket = BUCKET;
        get.key = "data/a.parquet";
        get.range = "0-" + (requested - 1);
        get.requested = requested;
        get.received = received;
        get.firstByte = firstByte;
        get.attempt = attempt;
        get.hedge = hedge;
        get.cause = cause;
        get.outcome = outcome;
        get.status = status;
        get.commit();
    }

    private static void metadata(String method, String key) {
        MetadataRequestEvent request = new MetadataRequestEvent();
        request.begin();
        spin(Duration.ofMillis(1));
        request.end();
        request.method = method;
        request.bucket = BUCKET;
        request.key = key;
        request.attempt = 1;
        request.outcome = "complete";
        request.status = 200;
        request.commit();
    }

    private static void wasted(String cause, long bytes) {
        PredictionWastedEvent wasted = new PredictionWastedEvent();
        wasted.bucket = BUCKET;
        wasted.key = "data/b.parquet";
        wasted.bytes = bytes;
        wasted.cause = cause;
        wasted.why = "evicted";
        wasted.commit();
    }

    private static void governor(int previous, int limit) {
        GovernorChangeEvent change = new GovernorChangeEvent();
        change.bucket = BUCKET;
        change.previousLimit = previous;
        change.limit = limit;
        change.inFlight = previous;
        change.commit();
    }

    // a duration for an event to have, not a wait for something to happen
    private static void spin(Duration duration) {
        long until = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    /** Runs {@code body} on a thread of that name, and joins it; what it threw is thrown here. */
    static void runOn(String name, Runnable body) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        body.run();
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                },
                name);
        thread.start();
        thread.join();
        if (failure.get() != null) {
            throw new AssertionError("the thread " + name + " failed", failure.get());
        }
    }
}
