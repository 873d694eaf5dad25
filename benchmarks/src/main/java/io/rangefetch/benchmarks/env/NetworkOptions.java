package io.rangefetch.benchmarks.env;

import io.rangefetch.StreamConfig;
import io.rangefetch.testing.proxy.NetworkModel;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * How the shaping proxy models the network: S3 from inside its region, or nothing, with any of the three
 * figures overridden. Durations take units as in Rangefetch's configuration ({@code 20ms}); rates are bytes
 * per second with decimal units as networks are quoted ({@code 80MB/s}); a rate of 0 means no cap.
 *
 * <p>The first-byte delay is the figure Rangefetch's cost model calls {@code network.first-byte-latency}, so it is
 * parsed as that setting is, through {@link StreamConfig#fromProperties}. Rates are parsed here: Rangefetch's sizes
 * are binary ({@code 8MB} is 8 MiB), where a network's rate is quoted in decimal units.
 */
public final class NetworkOptions {

    /** The base models. */
    public enum Shaping {
        S3,
        OFF
    }

    private static final Pattern RATE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)(?:/s)?\\s*");

    @Option(
            names = "--shaping",
            paramLabel = "s3|off",
            defaultValue = "s3",
            description =
                    "Network model in the proxy: s3 (S3 from inside its region) or off (default: ${DEFAULT-VALUE}).")
    Shaping shaping = Shaping.S3;

    @Option(
            names = "--first-byte-delay",
            paramLabel = "DURATION",
            description = "Override the delay before each response's first byte, e.g. 20ms.")
    String firstByteDelay;

    @Option(
            names = "--connection-rate",
            paramLabel = "RATE",
            description = "Override the rate of one connection, e.g. 80MB/s (decimal units; 0: no cap).")
    String connectionRate;

    @Option(
            names = "--total-rate",
            paramLabel = "RATE",
            description = "Override the rate of all connections together, e.g. 1GB/s (decimal units; 0: no cap).")
    String totalRate;

    /** The model these options describe. */
    public NetworkModel model() {
        NetworkModel model = shaping == Shaping.S3 ? NetworkModel.s3InRegion() : NetworkModel.unshaped();
        if (firstByteDelay != null) {
            model = model.withFirstByteDelay(duration("--first-byte-delay", firstByteDelay));
        }
        if (connectionRate != null) {
            model = model.withConnectionBytesPerSecond(rate("--connection-rate", connectionRate));
        }
        if (totalRate != null) {
            model = model.withTotalBytesPerSecond(rate("--total-rate", totalRate));
        }
        return model;
    }

    /** A duration as Rangefetch's configuration reads one ({@code 20ms}, {@code 1.5s}); negative ones refused. */
    static Duration duration(String option, String value) {
        try {
            return StreamConfig.fromProperties(Map.of(StreamConfig.FIRST_BYTE_LATENCY.key(), value), "")
                    .get(StreamConfig.FIRST_BYTE_LATENCY);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }

    /**
     * Bytes per second: a count, or a number with a unit; {@code kB}, {@code MB}, {@code GB} are decimal, as
     * network rates are quoted (and as the model prints them), {@code KiB}, {@code MiB}, {@code GiB} binary; an
     * optional {@code /s}.
     */
    static long rate(String option, String value) {
        Matcher matcher = RATE.matcher(value);
        if (!matcher.matches()) {
            throw new IllegalArgumentException(option + " must be a rate such as 80MB/s or 0, not '" + value + "'");
        }
        long multiplier = switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
            case "", "b" -> 1;
            case "k", "kb" -> 1_000;
            case "m", "mb" -> 1_000_000;
            case "g", "gb" -> 1_000_000_000;
            case "kib" -> 1L << 10;
            case "mib" -> 1L << 20;
            case "gib" -> 1L << 30;
            default ->
                throw new IllegalArgumentException(
                        option + ": unknown unit '" + matcher.group(2) + "' in '" + value + "'");
        };
        return Math.round(Double.parseDouble(matcher.group(1)) * multiplier);
    }
}
