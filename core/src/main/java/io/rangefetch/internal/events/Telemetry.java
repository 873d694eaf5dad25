package io.rangefetch.internal.events;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * What this JVM's GETs came to, for metrics: GET attempts by cause and outcome, the bytes they asked for and
 * received, prefetched bytes that left the caches unread by cause, and each ended GET told to the listeners that
 * keep histograms (first byte, duration). One per JVM, as a metrics system is: every factory reports here, whichever
 * engine made it.
 *
 * <p>Thread-safe: adders, and a copy-on-write list of listeners (registered once per metrics system). A listener
 * runs on the thread that ended the GET and must not block.
 *
 * <p><b>Public because</b> {@code internal.read} and {@code internal.cache} report to it, and {@code io.rangefetch}
 * ({@code RangefetchMetrics}) reads it.
 */
public final class Telemetry {
    private static final Telemetry JVM = new Telemetry();

    /** One GET attempt that ended; {@code firstByteNanos} is -1 when no answer began. */
    public record GetSample(
            FetchCause cause,
            GetOutcome outcome,
            long requestedBytes,
            long receivedBytes,
            long firstByteNanos,
            long durationNanos) {}

    private final LongAdder[][] gets = new LongAdder[FetchCause.values().length][GetOutcome.values().length];
    private final LongAdder[] unread = new LongAdder[FetchCause.values().length];
    private final LongAdder requested = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final List<Consumer<GetSample>> listeners = new CopyOnWriteArrayList<>();

    private Telemetry() {
        for (int cause = 0; cause < gets.length; cause++) {
            unread[cause] = new LongAdder();
            for (int outcome = 0; outcome < gets[cause].length; outcome++) {
                gets[cause][outcome] = new LongAdder();
            }
        }
    }

    /** This JVM's. */
    public static Telemetry jvm() {
        return JVM;
    }

    /** A GET attempt ended. */
    public void getEnded(GetSample sample) {
        gets[sample.cause().ordinal()][sample.outcome().ordinal()].increment();
        requested.add(sample.requestedBytes());
        received.add(sample.receivedBytes());
        for (Consumer<GetSample> listener : listeners) {
            listener.accept(sample);
        }
    }

    /** Prefetched bytes left a cache unread. */
    public void prefetchUnread(FetchCause cause, long bytes) {
        unread[cause.ordinal()].add(bytes);
    }

    public long gets(FetchCause cause, GetOutcome outcome) {
        return gets[cause.ordinal()][outcome.ordinal()].sum();
    }

    public long unreadPrefetch(FetchCause cause) {
        return unread[cause.ordinal()].sum();
    }

    /** Bytes GET attempts asked for. */
    public long bytesRequested() {
        return requested.sum();
    }

    /** Body bytes GET attempts received. */
    public long bytesReceived() {
        return received.sum();
    }

    /** Tells {@code listener} of every GET that ends from now on, until the returned handle is closed. */
    public AutoCloseable listen(Consumer<GetSample> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }
}
