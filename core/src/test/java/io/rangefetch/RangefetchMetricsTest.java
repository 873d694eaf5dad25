package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The JVM's figures for metrics systems: every factory's, closed ones included, GETs by cause and outcome, and the
 * same as OpenTelemetry instruments. The figures are the JVM's, so each test counts what its own reads added.
 */
class RangefetchMetricsTest {
    private static final int MIB = StreamFixture.MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @Test
    void theJvmsFiguresAddUpEveryFactorysAndKeepAClosedOnesFigures() throws Exception {
        RangefetchMetrics metrics = RangefetchMetrics.jvm();
        StreamStatistics before = metrics.statistics();
        long completeFirstReads = metrics.getRequests("first read", "complete");
        long requested = metrics.bytesRequested();
        long received = metrics.bytesReceived();

        StreamFactory factory = readTwice("metrics/jvm.bin", 3 * MIB);
        assertThat(metrics.openFactories()).isPositive();
        assertThat(metrics.cacheBudget())
                .isGreaterThanOrEqualTo(factory.config().get(StreamConfig.CACHE_MAX_MEMORY));
        StreamStatistics own = factory.statistics();
        factory.close();

        StreamStatistics after = metrics.statistics();
        assertThat(after.bytesServed() - before.bytesServed())
                .isEqualTo(own.bytesServed())
                .isEqualTo(6L * MIB);
        assertThat(after.getRequests() - before.getRequests()).isEqualTo(own.getRequests());
        assertThat(after.cacheHits() - before.cacheHits())
                .isEqualTo(own.cacheHits())
                .isPositive();
        assertThat(metrics.getRequests("first read", "complete") - completeFirstReads)
                .as("the read that learned the version fetched the object whole")
                .isEqualTo(1);
        assertThat(metrics.bytesReceived() - received)
                .isEqualTo(own.bytesFetched())
                .isEqualTo(3L * MIB);
        // the first GET asks for more than an object of unknown length may hold: its range is what was requested
        assertThat(metrics.bytesRequested() - requested).isGreaterThanOrEqualTo(3L * MIB);
    }

    @Test
    void aCauseOrOutcomeNoGetHasIsTheCallersMistake() {
        assertThatThrownBy(() -> RangefetchMetrics.jvm().getRequests("guess", "complete"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"guess\"")
                .hasMessageContaining("sequential prefetch");
        assertThatThrownBy(() -> RangefetchMetrics.jvm().getRequests("demand", "fine"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hedge lost");
    }

    @Test
    void openTelemetryGetsTheCountersGaugesAndAHistogramEntryPerGet() throws Exception {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                        .setMeterProvider(SdkMeterProvider.builder()
                                .registerMetricReader(reader)
                                .build())
                        .build();
                AutoCloseable registered = RangefetchOpenTelemetry.register(sdk)) {
            StreamFactory factory = readTwice("metrics/otel.bin", 20 * MIB);
            long gets = factory.statistics().getRequests();
            Map<String, MetricData> metrics = reader.collectAllMetrics().stream()
                    .collect(Collectors.toMap(MetricData::getName, metric -> metric));
            assertThat(metrics)
                    .containsKeys(
                            "rangefetch.get.requests",
                            "rangefetch.bytes.requested",
                            "rangefetch.bytes.received",
                            "rangefetch.bytes.served",
                            "rangefetch.cache.reads",
                            "rangefetch.metadata.requests",
                            "rangefetch.get.retries",
                            "rangefetch.get.hedges",
                            "rangefetch.cache.memory.used",
                            "rangefetch.cache.memory.limit",
                            "rangefetch.get.first_byte",
                            "rangefetch.get.duration");
            // the histograms saw each GET this test sent, and nothing before the registration
            Collection<HistogramPointData> durations =
                    metrics.get("rangefetch.get.duration").getHistogramData().getPoints();
            assertThat(durations.stream()
                            .mapToLong(HistogramPointData::getCount)
                            .sum())
                    .isEqualTo(gets);
            assertThat(durations)
                    .anySatisfy(point -> assertThat(point.getAttributes().get(AttributeKey.stringKey("cause")))
                            .isEqualTo("sequential prefetch"));
            long sequential = metrics.get("rangefetch.get.requests").getLongSumData().getPoints().stream()
                    .filter(point -> point.getAttributes()
                            .equals(Attributes.of(
                                    AttributeKey.stringKey("cause"), "sequential prefetch",
                                    AttributeKey.stringKey("outcome"), "complete")))
                    .mapToLong(LongPointData::getValue)
                    .sum();
            assertThat(sequential).isPositive();
            assertThat(metrics.get("rangefetch.cache.memory.limit")
                            .getLongSumData()
                            .getPoints())
                    .singleElement()
                    .satisfies(point -> assertThat(point.getValue())
                            .isGreaterThanOrEqualTo(factory.config().get(StreamConfig.CACHE_MAX_MEMORY)));
            factory.close();
        }
    }

    /** A factory that read one object of {@code size} bytes twice, the second time from its cache; left open. */
    private StreamFactory readTwice(String key, int size) throws Exception {
        byte[] data = TestData.bytes(size, 11);
        fixture.client().put(StreamFixture.BUCKET, key, data);
        StreamFactory factory = fixture.factory();
        for (int pass = 0; pass < 2; pass++) {
            try (SeekableS3InputStream stream = factory.open(new S3Location(StreamFixture.BUCKET, key))) {
                byte[] bytes = new byte[64 * 1024];
                long position = 0;
                for (int read; (read = stream.read(bytes, 0, bytes.length)) > 0; position += read) {
                    assertThat(read).isPositive();
                }
                assertThat(position).isEqualTo(size);
            }
            fixture.awaitQuiet();
        }
        return factory;
    }
}
