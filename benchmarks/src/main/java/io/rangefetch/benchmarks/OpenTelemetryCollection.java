package io.rangefetch.benchmarks;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricExporter;
import io.rangefetch.RangefetchOpenTelemetry;
import java.time.Duration;

/**
 * An OpenTelemetry SDK collecting Rangefetch's instruments every second into memory, as an application exporting
 * them would (less the network): what --opentelemetry measures the cost of.
 */
final class OpenTelemetryCollection implements AutoCloseable {
    private final InMemoryMetricExporter exporter = InMemoryMetricExporter.create();
    private final OpenTelemetrySdk sdk;
    private final AutoCloseable registration;

    private OpenTelemetryCollection() {
        sdk = OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder()
                        .registerMetricReader(PeriodicMetricReader.builder(exporter)
                                .setInterval(Duration.ofSeconds(1))
                                .build())
                        .build())
                .build();
        registration = RangefetchOpenTelemetry.register(sdk);
    }

    static OpenTelemetryCollection start() {
        return new OpenTelemetryCollection();
    }

    /** How many exports ran: one a second, each with every instrument. */
    long collections() {
        return exporter.getFinishedMetricItems().stream()
                .map(metric -> metric.getName())
                .filter("rangefetch.bytes.served"::equals)
                .count();
    }

    long lastMetricCount() {
        return exporter.getFinishedMetricItems().stream()
                .map(metric -> metric.getName())
                .distinct()
                .count();
    }

    @Override
    public void close() throws Exception {
        registration.close();
        sdk.close();
    }
}
