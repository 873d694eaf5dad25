package io.rangefetch.benchmarks;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricExporter;
import io.rangefetch.RangefetchOpenTelemetry;
import java.time.Duration;
import java.util.TreeMap;
import java.util.stream.Collectors;

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
                .map(MetricData::getName)
                .filter("rangefetch.bytes.served"::equals)
                .count();
    }

    /** The last export's points, one a line: name{attributes} value (a histogram: count, sum, and its max). */
    String lastExport() {
        TreeMap<String, MetricData> last = new TreeMap<>();
        for (MetricData metric : exporter.getFinishedMetricItems()) {
            last.put(metric.getName(), metric); // exported in order: the last one of each name stays
        }
        StringBuilder lines = new StringBuilder();
        for (MetricData metric : last.values()) {
            for (PointData point : metric.getData().getPoints()) {
                String value;
                if (point instanceof LongPointData number) {
                    value = Long.toString(number.getValue());
                } else if (point instanceof DoublePointData number) {
                    value = Double.toString(number.getValue());
                } else if (point instanceof HistogramPointData histogram) {
                    value = String.format(
                            "count=%d sum=%.3f max=%.3f", histogram.getCount(), histogram.getSum(), histogram.getMax());
                } else {
                    value = point.toString();
                }
                lines.append(metric.getName())
                        .append(
                                point.getAttributes().isEmpty()
                                        ? ""
                                        : point.getAttributes().asMap().entrySet().stream()
                                                .map(entry -> entry.getKey().getKey() + "=\"" + entry.getValue() + "\"")
                                                .sorted()
                                                .collect(Collectors.joining(",", "{", "}")))
                        .append(' ')
                        .append(value)
                        .append(" (")
                        .append(metric.getUnit())
                        .append(")\n");
            }
        }
        return lines.toString();
    }

    @Override
    public void close() throws Exception {
        registration.close();
        sdk.close();
    }
}
