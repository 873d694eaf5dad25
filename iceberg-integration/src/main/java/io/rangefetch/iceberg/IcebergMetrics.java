package io.rangefetch.iceberg;

import java.util.Map;
import org.apache.iceberg.metrics.MetricsContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read metrics context a FileIO reports to, chosen as {@code S3FileIO} chooses its own: Hadoop's
 * {@code FileSystem} statistics for the {@code s3} scheme when Iceberg's Hadoop module is on the class path
 * (Spark reads its task input metrics from them, per thread), else no metrics. {@code S3FileIO} keeps its
 * context private, so this builds an equal one from the same properties.
 */
final class IcebergMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(IcebergMetrics.class);
    private static final String HADOOP_METRICS = "org.apache.iceberg.hadoop.HadoopMetricsContext";

    private IcebergMetrics() {}

    static MetricsContext load(Map<String, String> properties) {
        try {
            Class<?> type = Class.forName(HADOOP_METRICS, true, IcebergMetrics.class.getClassLoader());
            MetricsContext context =
                    (MetricsContext) type.getConstructor(String.class).newInstance("s3");
            context.initialize(properties);
            return context;
        } catch (ClassNotFoundException | LinkageError e) {
            // no Iceberg Hadoop module or no Hadoop: S3FileIO reports none either (and has said so)
            LOG.debug("{} is not available; Rangefetch reads report no Iceberg metrics", HADOOP_METRICS, e);
        } catch (ReflectiveOperationException | ClassCastException e) {
            LOG.warn("Cannot load {}; Rangefetch reads report no Iceberg metrics", HADOOP_METRICS, e);
        }
        return MetricsContext.nullMetrics();
    }
}
