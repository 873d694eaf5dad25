package io.rangefetch.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.resource.ResourceInformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The executor plugin registers the JVM's figures in the registry Spark gives it: gauges that follow the reads, and
 * timers fed by each GET while it is registered. (SparkEnginesIT checks the same through Spark's own metrics system.)
 */
class RangefetchSparkPluginTest {
    private static final int MIB = StreamFixture.MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @Test
    void anExecutorsRegistryShowsTheJvmsFiguresAndTimesEachGet() throws Exception {
        MetricRegistry registry = new MetricRegistry();
        ExecutorPlugin plugin = new RangefetchSparkPlugin().executorPlugin();
        plugin.init(new RegistryOnly(registry), Map.of());
        long servedBefore = value(registry, "bytes.served");
        long completeBefore = value(registry, "get.requests.complete");

        byte[] data = TestData.bytes(12 * MIB, 3);
        fixture.client().put(StreamFixture.BUCKET, "spark/plugin.bin", data);
        StreamFactory factory = fixture.factory();
        try (SeekableS3InputStream stream = factory.open(new S3Location(StreamFixture.BUCKET, "spark/plugin.bin"))) {
            byte[] bytes = new byte[data.length];
            stream.readFully(0, bytes, 0, bytes.length);
            assertThat(bytes).isEqualTo(data);
        }
        fixture.awaitQuiet();
        long gets = factory.statistics().getRequests();

        assertThat(value(registry, "bytes.served") - servedBefore).isEqualTo(data.length);
        assertThat(value(registry, "get.requests.complete") - completeBefore).isEqualTo(gets);
        assertThat(registry.timer("get.duration").getCount()).isEqualTo(gets);
        assertThat(registry.timer("get.firstByte").getCount()).isEqualTo(gets);
        assertThat(value(registry, "cache.memory.limit")).isPositive();
        assertThat(registry.getGauges().keySet())
                .contains("prefetch.unread.sequential_prefetch", "get.sent.first_read", "throttle.limit");

        plugin.shutdown();
        try (SeekableS3InputStream stream = factory.open(new S3Location(StreamFixture.BUCKET, "spark/plugin.bin"))) {
            stream.readFully(0, new byte[1], 0, 1);
        }
        factory.close();
        assertThat(registry.timer("get.duration").getCount())
                .as("a plugin shut down times no GET")
                .isEqualTo(gets);
    }

    private static long value(MetricRegistry registry, String name) {
        Gauge<?> gauge = registry.getGauges().get(name);
        assertThat(gauge).as("gauge %s", name).isNotNull();
        return ((Number) gauge.getValue()).longValue();
    }

    /** What Spark gives a plugin, of which this one uses only the registry. */
    private record RegistryOnly(MetricRegistry metricRegistry) implements PluginContext {
        @Override
        public SparkConf conf() {
            throw new UnsupportedOperationException("not used by the plugin");
        }

        @Override
        public String executorID() {
            return "1";
        }

        @Override
        public String hostname() {
            return "localhost";
        }

        @Override
        public Map<String, ResourceInformation> resources() {
            return Map.of();
        }

        @Override
        public void send(Object message) {
            throw new UnsupportedOperationException("not used by the plugin");
        }

        @Override
        public Object ask(Object message) {
            throw new UnsupportedOperationException("not used by the plugin");
        }
    }
}
