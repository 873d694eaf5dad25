package io.rangefetch.hadoop;

import io.rangefetch.StreamConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Rangefetch's settings from a Hadoop configuration: every {@link StreamConfig} key under
 * {@value RangefetchStreamFactory#CONFIG_PREFIX}, with its units ({@code fs.s3a.rangefetch.cache.max-memory=512MB}).
 * Per-bucket values ({@code fs.s3a.bucket.<b>.rangefetch.*}) need nothing here: S3A copies a bucket's
 * {@code fs.s3a.bucket.<b>.*} options over the {@code fs.s3a.*} ones before its services start. An unknown key
 * or a bad value fails with the full Hadoop key and the value in the message.
 */
final class HadoopSettings {
    private HadoopSettings() {}

    static StreamConfig streamConfig(Configuration conf) {
        Map<String, String> settings = new HashMap<>();
        conf.getPropsWithPrefix(RangefetchStreamFactory.CONFIG_PREFIX)
                .forEach((key, value) -> settings.put(RangefetchStreamFactory.CONFIG_PREFIX + key, value));
        return StreamConfig.fromProperties(settings, RangefetchStreamFactory.CONFIG_PREFIX);
    }
}
