package io.rangefetch;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rangefetch's {@link RangefetchMetrics} as OpenTelemetry instruments, on the meter {@value #METER}: counters of GETs
 * by cause and outcome, of bytes asked for, received, served and prefetched but never read, of cache hits and misses,
 * HEADs, LISTs, retries and hedges; gauges of the throttle limit and the cache's memory against its budget; and
 * histograms of GETs' first-byte latency and duration. docs/OBSERVABILITY.md lists them.
 *
 * <p><b>Optional.</b> The OpenTelemetry API is an optional dependency: without it on the class path nothing here is
 * loaded. With it, the first factory opened after the application set {@link GlobalOpenTelemetry} (or an agent
 * did) registers the instruments there, once per JVM; this class never sets or reads the global before it was set,
 * which would fix it to a no-op. An application with an {@link OpenTelemetry} of its own calls {@link #register}.
 *
 * <p>Thread-safe. The counters and gauges are read when the SDK collects; the histograms are recorded as GETs end.
 */
public final class RangefetchOpenTelemetry {
    /** The instrumentation scope's name. */
    public static final String METER = "io.rangefetch";

    private static final Logger LOG = LoggerFactory.getLogger(RangefetchOpenTelemetry.class);
    private static final AtomicBoolean REGISTERED_GLOBALLY = new AtomicBoolean();
    private static final AttributeKey<String> CAUSE = AttributeKey.stringKey("cause");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");

    private RangefetchOpenTelemetry() {}

    /**
     * Registers the instruments with {@code openTelemetry}'s meter provider; closing the handle removes them. Call
     * it once per {@link OpenTelemetry}: a second registration reports everything twice.
     */
    public static AutoCloseable register(OpenTelemetry openTelemetry) {
        if (openTelemetry == null) {
            throw new IllegalArgumentException("openTelemetry is null");
        }
        Meter meter = openTelemetry.getMeter(METER);
        RangefetchMetrics metrics = RangefetchMetrics.jvm();
        List<AutoCloseable> registered = new ArrayList<>();
        registered.add(meter.counterBuilder("rangefetch.get.requests")
                .setDescription("GET attempts sent to S3 (each retry and hedge one), by why and how they ended")
                .setUnit("{request}")
                .buildWithCallback(measurement -> {
                    for (String cause : RangefetchMetrics.causes()) {
                        for (String outcome : RangefetchMetrics.outcomes()) {
                            long count = metrics.getRequests(cause, outcome);
                            if (count > 0) {
                                measurement.record(count, Attributes.of(CAUSE, cause, OUTCOME, outcome));
                            }
                        }
                    }
                }));
        registered.add(meter.counterBuilder("rangefetch.prefetch.unread")
                .setDescription("Bytes fetched ahead of readers that left the cache unread, by why they were fetched")
                .setUnit("By")
                .buildWithCallback(measurement -> {
                    for (String cause : RangefetchMetrics.prefetchCauses()) {
                        long bytes = metrics.unreadPrefetchBytes(cause);
                        if (bytes > 0) {
                            measurement.record(bytes, Attributes.of(CAUSE, cause));
                        }
                    }
                }));
        registered.add(counter(
                meter,
                "rangefetch.bytes.requested",
                "Bytes GET attempts asked for",
                "By",
                sum -> sum.record(metrics.bytesRequested())));
        registered.add(counter(
                meter,
                "rangefetch.bytes.received",
                "Body bytes GET attempts received",
                "By",
                sum -> sum.record(metrics.bytesReceived())));
        registered.add(statistic(
                meter, "rangefetch.bytes.served", "Bytes handed to readers", "By", StreamStatistics::bytesServed));
        registered.add(counter(
                meter,
                "rangefetch.cache.reads",
                "Reads, served from the cache (hit) or not (miss)",
                "{read}",
                reads -> {
                    StreamStatistics figures = metrics.statistics();
                    reads.record(figures.cacheHits(), Attributes.of(AttributeKey.stringKey("result"), "hit"));
                    reads.record(figures.cacheMisses(), Attributes.of(AttributeKey.stringKey("result"), "miss"));
                }));
        registered.add(counter(
                meter,
                "rangefetch.metadata.requests",
                "HEAD and ListObjectsV2 requests sent",
                "{request}",
                requests -> {
                    StreamStatistics figures = metrics.statistics();
                    requests.record(figures.headRequests(), Attributes.of(AttributeKey.stringKey("method"), "HEAD"));
                    requests.record(figures.listRequests(), Attributes.of(AttributeKey.stringKey("method"), "LIST"));
                }));
        registered.add(statistic(
                meter,
                "rangefetch.get.retries",
                "Requests sent again after a failure that may pass",
                "{request}",
                StreamStatistics::retries));
        registered.add(statistic(
                meter,
                "rangefetch.get.hedges",
                "GETs sent a second time because slow to answer",
                "{request}",
                StreamStatistics::hedgesSent));
        registered.add(meter.gaugeBuilder("rangefetch.throttle.limit")
                .setDescription("The lowest limit of the buckets' throttle governors (absent when none limits)")
                .setUnit("{request}")
                .ofLongs()
                .buildWithCallback(gauge -> {
                    int limit = metrics.throttleLimit();
                    if (limit >= 0) {
                        gauge.record(limit);
                    }
                }));
        registered.add(meter.upDownCounterBuilder("rangefetch.cache.memory.used")
                .setDescription("Bytes the caches hold, GETs in flight included")
                .setUnit("By")
                .buildWithCallback(used -> used.record(metrics.cacheBytesInUse())));
        registered.add(meter.upDownCounterBuilder("rangefetch.cache.memory.limit")
                .setDescription("The caches' memory budgets (cache.max-memory), added up")
                .setUnit("By")
                .buildWithCallback(limit -> limit.record(metrics.cacheBudget())));
        DoubleHistogram firstByte = meter.histogramBuilder("rangefetch.get.first_byte")
                .setDescription("From a GET's send until its answer began")
                .setUnit("s")
                .build();
        DoubleHistogram duration = meter.histogramBuilder("rangefetch.get.duration")
                .setDescription("From a GET's send until its body was read, cut, or it failed")
                .setUnit("s")
                .build();
        registered.add(metrics.onGet((cause, outcome, requested, received, firstByteNanos, durationNanos) -> {
            Attributes attributes = Attributes.of(CAUSE, cause, OUTCOME, outcome);
            if (firstByteNanos >= 0) {
                firstByte.record(firstByteNanos / 1e9, attributes);
            }
            duration.record(durationNanos / 1e9, attributes);
        }));
        return () -> {
            for (AutoCloseable instrument : registered) {
                instrument.close();
            }
        };
    }

    /**
     * Registers with the global OpenTelemetry once it was set (by the application or an agent), once per JVM:
     * called as each factory opens.
     */
    static void registerGloballyIfSet() {
        if (GlobalOpenTelemetry.isSet() && REGISTERED_GLOBALLY.compareAndSet(false, true)) {
            register(GlobalOpenTelemetry.get());
            LOG.debug("Rangefetch's metrics registered with the global OpenTelemetry (meter {})", METER);
        }
    }

    private static AutoCloseable counter(
            Meter meter, String name, String description, String unit, Consumer<ObservableLongMeasurement> read) {
        return meter.counterBuilder(name)
                .setDescription(description)
                .setUnit(unit)
                .buildWithCallback(read);
    }

    private static AutoCloseable statistic(
            Meter meter, String name, String description, String unit, ToLongFunction<StreamStatistics> figure) {
        return counter(
                meter,
                name,
                description,
                unit,
                sum -> sum.record(figure.applyAsLong(RangefetchMetrics.jvm().statistics())));
    }
}
