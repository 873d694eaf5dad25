package io.rangefetch.spark;

import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * Rangefetch's figures in Spark's metrics system: {@code spark.plugins io.rangefetch.spark.RangefetchSparkPlugin}
 * registers, on the driver and on each executor, the JVM's {@link io.rangefetch.RangefetchMetrics} under the source
 * {@code plugin.io.rangefetch.spark.RangefetchSparkPlugin}, where Spark's sinks (the Prometheus servlet, JMX, CSV,
 * Graphite ...) find them. docs/OBSERVABILITY.md lists the metrics.
 *
 * <p>The driver reads too (Iceberg's planning, Parquet footers on the driver), so both register. In local mode the
 * driver and the executor are one JVM: both sources then show the same figures.
 */
public final class RangefetchSparkPlugin implements SparkPlugin {
    @Override
    public DriverPlugin driverPlugin() {
        return new DriverPlugin() {
            private SparkMetricsRegistration registration;

            @Override
            public Map<String, String> init(SparkContext context, PluginContext plugin) {
                return Map.of();
            }

            @Override
            public void registerMetrics(String appId, PluginContext plugin) {
                registration = SparkMetricsRegistration.register(plugin.metricRegistry());
            }

            @Override
            public void shutdown() {
                if (registration != null) {
                    registration.close();
                }
            }
        };
    }

    @Override
    public ExecutorPlugin executorPlugin() {
        return new ExecutorPlugin() {
            private SparkMetricsRegistration registration;

            @Override
            public void init(PluginContext plugin, Map<String, String> extraConf) {
                registration = SparkMetricsRegistration.register(plugin.metricRegistry());
            }

            @Override
            public void shutdown() {
                if (registration != null) {
                    registration.close();
                }
            }
        };
    }
}
