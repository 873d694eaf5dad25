package io.rangefetch.spark;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.rangefetch.RangefetchMetrics;
import io.rangefetch.StreamStatistics;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * The JVM's {@link RangefetchMetrics} in one Dropwizard {@link MetricRegistry} (a Spark plugin's): gauges that read
 * the counters when a sink reports (Spark's sinks report gauges as they find them; the values only grow, except the
 * throttle limit and the cache's memory), and two timers fed as each GET attempt ends (first byte, duration).
 *
 * <p>Names are dotted and lower case, spaces of causes and outcomes as underscores: {@code get.requests.complete},
 * {@code prefetch.unread.sequential_prefetch}. Closing stops feeding the timers; the gauges stay with the registry,
 * which Spark drops with the plugin.
 */
final class SparkMetricsRegistration implements AutoCloseable {
    private final AutoCloseable listener;

    private SparkMetricsRegistration(AutoCloseable listener) {
        this.listener = listener;
    }

    static SparkMetricsRegistration register(MetricRegistry registry) {
        RangefetchMetrics metrics = RangefetchMetrics.jvm();
        statistic(registry, "bytes.served", StreamStatistics::bytesServed);
        statistic(registry, "bytes.fetched", StreamStatistics::bytesFetched);
        statistic(registry, "bytes.prefetched", StreamStatistics::prefetchedBytes);
        statistic(registry, "bytes.prefetched.unread", StreamStatistics::prefetchedBytesUnread);
        statistic(registry, "cache.hits", StreamStatistics::cacheHits);
        statistic(registry, "cache.misses", StreamStatistics::cacheMisses);
        statistic(registry, "requests.get", StreamStatistics::getRequests);
        statistic(registry, "requests.head", StreamStatistics::headRequests);
        statistic(registry, "requests.list", StreamStatistics::listRequests);
        statistic(registry, "requests.retries", StreamStatistics::retries);
        statistic(registry, "requests.resumes", StreamStatistics::resumes);
        statistic(registry, "requests.throttled", StreamStatistics::throttledResponses);
        statistic(registry, "requests.hedges", StreamStatistics::hedgesSent);
        gauge(registry, "bytes.requested", metrics::bytesRequested);
        gauge(registry, "bytes.received", metrics::bytesReceived);
        for (String outcome : RangefetchMetrics.outcomes()) {
            gauge(
                    registry,
                    "get.requests." + name(outcome),
                    () -> RangefetchMetrics.causes().stream()
                            .mapToLong(cause -> metrics.getRequests(cause, outcome))
                            .sum());
        }
        for (String cause : RangefetchMetrics.causes()) {
            gauge(
                    registry,
                    "get.sent." + name(cause),
                    () -> RangefetchMetrics.outcomes().stream()
                            .mapToLong(outcome -> metrics.getRequests(cause, outcome))
                            .sum());
        }
        for (String cause : RangefetchMetrics.prefetchCauses()) {
            gauge(registry, "prefetch.unread." + name(cause), () -> metrics.unreadPrefetchBytes(cause));
        }
        gauge(registry, "throttle.limit", () -> (long) metrics.throttleLimit());
        gauge(registry, "cache.memory.used", metrics::cacheBytesInUse);
        gauge(registry, "cache.memory.limit", metrics::cacheBudget);
        Timer firstByte = registry.timer("get.firstByte");
        Timer duration = registry.timer("get.duration");
        AutoCloseable listener = metrics.onGet((cause, outcome, requested, received, firstByteNanos, durationNanos) -> {
            if (firstByteNanos >= 0) {
                firstByte.update(firstByteNanos, TimeUnit.NANOSECONDS);
            }
            duration.update(durationNanos, TimeUnit.NANOSECONDS);
        });
        return new SparkMetricsRegistration(listener);
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (Exception e) {
            throw new IllegalStateException("Could not stop feeding the GET timers", e);
        }
    }

    private static void statistic(MetricRegistry registry, String name, ToLongFunction<StreamStatistics> figure) {
        gauge(registry, name, () -> figure.applyAsLong(RangefetchMetrics.jvm().statistics()));
    }

    private static void gauge(MetricRegistry registry, String name, Gauge<Long> gauge) {
        registry.register(name, gauge);
    }

    private static String name(String label) {
        return label.replace(' ', '_');
    }
}
