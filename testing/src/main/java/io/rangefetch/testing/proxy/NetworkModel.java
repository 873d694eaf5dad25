package io.rangefetch.testing.proxy;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;

/**
 * The network a {@link ShapingProxy} imposes on responses: a delay before each response's first byte
 * and download rate caps, one per client connection and one shared by all of them. A rate of 0 means no
 * cap. Rates are in bytes per second and printed in decimal units, as networks are quoted (80 MB/s is
 * 80,000,000 bytes per second).
 */
public record NetworkModel(Duration firstByteDelay, long connectionBytesPerSecond, long totalBytesPerSecond) {

    public NetworkModel {
        requireNonNull(firstByteDelay, "firstByteDelay is null");
        if (firstByteDelay.isNegative()) {
            throw new IllegalArgumentException("firstByteDelay is negative: " + firstByteDelay);
        }
        requireNotNegative("connectionBytesPerSecond", connectionBytesPerSecond);
        requireNotNegative("totalBytesPerSecond", totalBytesPerSecond);
    }

    /**
     * S3 seen from an instance in the same region: about 20 ms to the first byte and about 80 MB/s per
     * connection; the instance's own network is not capped.
     */
    public static NetworkModel s3InRegion() {
        return new NetworkModel(Duration.ofMillis(20), 80_000_000L, 0);
    }

    /** No delay and no caps: the proxy only forwards and counts. */
    public static NetworkModel unshaped() {
        return new NetworkModel(Duration.ZERO, 0, 0);
    }

    public NetworkModel withFirstByteDelay(Duration delay) {
        return new NetworkModel(delay, connectionBytesPerSecond, totalBytesPerSecond);
    }

    public NetworkModel withConnectionBytesPerSecond(long bytesPerSecond) {
        return new NetworkModel(firstByteDelay, bytesPerSecond, totalBytesPerSecond);
    }

    public NetworkModel withTotalBytesPerSecond(long bytesPerSecond) {
        return new NetworkModel(firstByteDelay, connectionBytesPerSecond, bytesPerSecond);
    }

    /** Whether any byte is ever held back: a delay or a cap is set. */
    public boolean shapes() {
        return !firstByteDelay.isZero() || connectionBytesPerSecond > 0 || totalBytesPerSecond > 0;
    }

    /** For reports, for example {@code "20 ms first byte, 80 MB/s per connection, no total cap"}. */
    public String describe() {
        String delay = firstByteDelay.isZero() ? "no first-byte delay" : duration(firstByteDelay) + " first byte";
        String connection = connectionBytesPerSecond == 0
                ? "no per-connection cap"
                : rate(connectionBytesPerSecond) + " per connection";
        String total = totalBytesPerSecond == 0 ? "no total cap" : rate(totalBytesPerSecond) + " in total";
        return delay + ", " + connection + ", " + total;
    }

    private static void requireNotNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " is negative: " + value + " (0 means no cap)");
        }
    }

    private static String duration(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos >= 1_000_000_000L) {
            return decimal(nanos, 1_000_000_000L) + " s";
        }
        return nanos >= 1_000_000L ? decimal(nanos, 1_000_000L) + " ms" : decimal(nanos, 1_000L) + " µs";
    }

    private static String rate(long bytesPerSecond) {
        if (bytesPerSecond >= 1_000_000_000L) {
            return decimal(bytesPerSecond, 1_000_000_000L) + " GB/s";
        }
        if (bytesPerSecond >= 1_000_000L) {
            return decimal(bytesPerSecond, 1_000_000L) + " MB/s";
        }
        return bytesPerSecond >= 1_000L ? decimal(bytesPerSecond, 1_000L) + " kB/s" : bytesPerSecond + " B/s";
    }

    // three significant digits at most, no trailing zeros: 80, 1.5, 12.3
    private static String decimal(long value, long unit) {
        return BigDecimal.valueOf(value)
                .divide(BigDecimal.valueOf(unit), new MathContext(3))
                .stripTrailingZeros()
                .toPlainString();
    }
}
