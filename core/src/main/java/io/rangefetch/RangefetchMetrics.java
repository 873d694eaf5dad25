package io.rangefetch;

import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.GetOutcome;
import io.rangefetch.internal.events.Telemetry;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every {@link StreamFactory} of this JVM cost and served, for the metrics systems users already watch: the
 * figures {@link RangefetchOpenTelemetry} and the Spark plugin ({@code io.rangefetch.spark.RangefetchSparkPlugin})
 * publish, and anyone may read. One per JVM, as a metrics system is: factories made by S3A, by Iceberg's FileIO and
 * by users all report here, open ones and closed ones alike.
 *
 * <p>Counters only grow: {@link #statistics()} adds what the factories closed so far served to what the open ones
 * serve now. GETs are counted by why they were sent ({@link #causes()}) and how they ended ({@link #outcomes()}),
 * each attempt and each hedge once. Gauges ({@link #cacheBytesInUse()}, {@link #cacheBudget()}, {@link
 * #throttleLimit()}) are over the open factories.
 *
 * <p>Thread-safe.
 */
public final class RangefetchMetrics {
    private static final RangefetchMetrics JVM = new RangefetchMetrics();
    private static final List<String> CAUSES =
            Arrays.stream(FetchCause.values()).map(FetchCause::label).toList();
    private static final List<String> PREFETCH_CAUSES = Arrays.stream(FetchCause.values())
            .filter(FetchCause::mayGoUnread)
            .map(FetchCause::label)
            .toList();
    private static final List<String> OUTCOMES =
            Arrays.stream(GetOutcome.values()).map(GetOutcome::label).toList();

    private final Set<StreamFactory> open = ConcurrentHashMap.newKeySet();
    // guarded by this: what the closed factories served, in total
    private StreamStatistics closed = new StreamStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0);

    private RangefetchMetrics() {}

    /** This JVM's. */
    public static RangefetchMetrics jvm() {
        return JVM;
    }

    /** Why a GET is sent, as {@link #getRequests} and the metrics name it. */
    public static List<String> causes() {
        return CAUSES;
    }

    /** The causes of GETs that may fetch bytes before a reader asks for them: those whose bytes may go unread. */
    public static List<String> prefetchCauses() {
        return PREFETCH_CAUSES;
    }

    /** How a GET attempt ends, as {@link #getRequests} and the metrics name it. */
    public static List<String> outcomes() {
        return OUTCOMES;
    }

    /**
     * Every factory's figures added up, closed ones included; the throttle limit is the lowest of the open ones'
     * (-1 when none limits).
     */
    public StreamStatistics statistics() {
        StreamStatistics total;
        synchronized (this) {
            total = closed;
        }
        int limit = -1;
        for (StreamFactory factory : open) {
            StreamStatistics figures = factory.statistics();
            total = total.plus(figures);
            limit = lowest(limit, figures.throttleLimit());
        }
        return total.withThrottleLimit(limit);
    }

    /** GET attempts sent for {@code cause} that ended as {@code outcome}. */
    public long getRequests(String cause, String outcome) {
        return Telemetry.jvm().gets(cause(cause), outcome(outcome));
    }

    /** Bytes GET attempts asked for. */
    public long bytesRequested() {
        return Telemetry.jvm().bytesRequested();
    }

    /** Body bytes GET attempts received, complete or not. */
    public long bytesReceived() {
        return Telemetry.jvm().bytesReceived();
    }

    /** Bytes prefetched for {@code cause} that left a cache without a reader reading them. */
    public long unreadPrefetchBytes(String cause) {
        return Telemetry.jvm().unreadPrefetch(cause(cause));
    }

    /** Bytes the open factories' caches hold now, GETs in flight included. */
    public long cacheBytesInUse() {
        return open.stream().mapToLong(StreamFactory::cacheMemoryBytes).sum();
    }

    /** The open factories' memory budgets ({@code cache.max-memory}), added up. */
    public long cacheBudget() {
        return open.stream()
                .mapToLong(factory -> factory.config().get(StreamConfig.CACHE_MAX_MEMORY))
                .sum();
    }

    /** The lowest limit of the open factories' throttle governors; -1 when none limits. */
    public int throttleLimit() {
        int limit = -1;
        for (StreamFactory factory : open) {
            limit = lowest(limit, factory.statistics().throttleLimit());
        }
        return limit;
    }

    /** How many factories are open. */
    public int openFactories() {
        return open.size();
    }

    /** Told of each GET attempt as it ends, for histograms; runs on the thread that ended it and must not block. */
    @FunctionalInterface
    public interface GetListener {
        /**
         * @param firstByteNanos from the send until the answer began; -1 when none did
         * @param durationNanos from the send until its body was read, cut, or it failed
         */
        void ended(
                String cause,
                String outcome,
                long requestedBytes,
                long receivedBytes,
                long firstByteNanos,
                long durationNanos);
    }

    /** Tells {@code listener} of every GET attempt that ends from now on, until the handle is closed. */
    public AutoCloseable onGet(GetListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener is null");
        }
        return Telemetry.jvm()
                .listen(sample -> listener.ended(
                        sample.cause().label(),
                        sample.outcome().label(),
                        sample.requestedBytes(),
                        sample.receivedBytes(),
                        sample.firstByteNanos(),
                        sample.durationNanos()));
    }

    void opened(StreamFactory factory) {
        open.add(factory);
    }

    /** {@code factory} closed with {@code last} its final figures: they stay counted. */
    void closed(StreamFactory factory, StreamStatistics last) {
        synchronized (this) {
            if (open.remove(factory)) {
                closed = closed.plus(last);
            }
        }
    }

    private static FetchCause cause(String label) {
        return Arrays.stream(FetchCause.values())
                .filter(cause -> cause.label().equals(label))
                .findFirst()
                .orElseThrow(() ->
                        new IllegalArgumentException("No GET is sent for \"" + label + "\"; the causes: " + CAUSES));
    }

    private static GetOutcome outcome(String label) {
        return Arrays.stream(GetOutcome.values())
                .filter(outcome -> outcome.label().equals(label))
                .findFirst()
                .orElseThrow(() ->
                        new IllegalArgumentException("No GET ends as \"" + label + "\"; the outcomes: " + OUTCOMES));
    }

    private static int lowest(int limit, int other) {
        if (other < 0) {
            return limit;
        }
        return limit < 0 ? other : Math.min(limit, other);
    }
}
