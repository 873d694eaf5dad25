package io.rangefetch.benchmarks.env;

import io.rangefetch.internal.config.ConfigValues;
import io.rangefetch.it.proxy.NetworkModel;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * How the shaping proxy models the network: S3 from inside its region, or nothing, with any of the three
 * figures overridden. Sizes and durations take units ({@code 20ms}, {@code 80MiB}; size units are powers of
 * 1024 as in Rangefetch's configuration); a rate of 0 means no cap.
 */
public final class NetworkOptions {

    /** The base models. */
    public enum Shaping {
        S3, OFF
    }

    @Option(names = "--shaping", paramLabel = "s3|off", defaultValue = "s3",
            description = "Network model in the proxy: s3 (S3 from inside its region) or off (default: ${DEFAULT-VALUE}).")
    Shaping shaping = Shaping.S3;

    @Option(names = "--first-byte-delay", paramLabel = "DURATION",
            description = "Override the delay before each response's first byte, e.g. 20ms.")
    String firstByteDelay;

    @Option(names = "--connection-rate", paramLabel = "SIZE",
            description = "Override the bytes per second of one connection, e.g. 80MiB (0: no cap).")
    String connectionRate;

    @Option(names = "--total-rate", paramLabel = "SIZE",
            description = "Override the bytes per second of all connections together, e.g. 1GiB (0: no cap).")
    String totalRate;

    /** The model these options describe. */
    public NetworkModel model() {
        NetworkModel model = shaping == Shaping.S3 ? NetworkModel.s3InRegion() : NetworkModel.unshaped();
        if (firstByteDelay != null) {
            Duration delay = ConfigValues.parseDuration("--first-byte-delay", firstByteDelay);
            model = model.withFirstByteDelay(delay);
        }
        if (connectionRate != null) {
            model = model.withConnectionBytesPerSecond(rate("--connection-rate", connectionRate));
        }
        if (totalRate != null) {
            model = model.withTotalBytesPerSecond(rate("--total-rate", totalRate));
        }
        return model;
    }

    private static long rate(String option, String value) {
        String perSecond = value.strip();
        if (perSecond.endsWith("/s")) {
            perSecond = perSecond.substring(0, perSecond.length() - 2);
        }
        return ConfigValues.parseSize(option, perSecond);
    }
}
