package io.rangefetch.hadoop;

import io.rangefetch.StreamConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Rangefetch's settings from a Hadoop configuration: every {@link StreamConfig} key under
 * {@value #CONFIG_PREFIX}, with its units ({@code fs.s3a.rangefetch.cache.max-memory=512MB}).
 * Per-bucket values ({@code fs.s3a.bucket.<b>.rangefetch.*}) need nothing here: S3A copies a bucket's
 * {@code fs.s3a.bucket.<b>.*} options over the {@code fs.s3a.*} ones before its services start. An unknown key
 * or a bad value fails with the full Hadoop key and the value in the message.
 */
final class HadoopSettings {
    /** The prefix of Rangefetch's own settings in a Hadoop configuration, the {@code StreamConfig} keys after it. */
    static final String CONFIG_PREFIX = "fs.s3a.rangefetch.";

    private HadoopSettings() {}

    static StreamConfig streamConfig(Configuration conf) {
        Map<String, String> settings = new HashMap<>();
        conf.getPropsWithPrefix(CONFIG_PREFIX).forEach((key, value) -> settings.put(CONFIG_PREFIX + key, value));
        return StreamConfig.fromProperties(settings, CONFIG_PREFIX);
    }
}
