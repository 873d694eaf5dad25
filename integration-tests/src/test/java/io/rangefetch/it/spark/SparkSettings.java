package io.rangefetch.it.spark;

import io.rangefetch.testing.server.S3Server;
import java.util.LinkedHashMap;
import java.util.Map;

/** The Spark settings every Spark of the Spark ITs starts from. */
final class SparkSettings {
    private SparkSettings() {}

    /**
     * Local mode on loopback (two cores, four shuffle partitions) and S3A on {@code endpoint} (a proxy in front of
     * {@code server}) with the server's keys, as an S3-compatible store needs it. Callers add their read path's
     * settings to the map, which is theirs.
     */
    static Map<String, String> localS3A(String endpoint, S3Server server) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("spark.master", "local[2]");
        settings.put("spark.ui.enabled", "false");
        settings.put("spark.driver.host", "127.0.0.1");
        settings.put("spark.driver.bindAddress", "127.0.0.1");
        settings.put("spark.sql.shuffle.partitions", "4");
        settings.put("spark.hadoop.fs.s3a.endpoint", endpoint);
        settings.put("spark.hadoop.fs.s3a.endpoint.region", server.region());
        settings.put("spark.hadoop.fs.s3a.path.style.access", "true");
        settings.put("spark.hadoop.fs.s3a.connection.ssl.enabled", "false");
        settings.put("spark.hadoop.fs.s3a.bucket.probe", "0");
        settings.put(
                "spark.hadoop.fs.s3a.aws.credentials.provider",
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        settings.put("spark.hadoop.fs.s3a.access.key", server.accessKey());
        settings.put("spark.hadoop.fs.s3a.secret.key", server.secretKey());
        return settings;
    }
}
