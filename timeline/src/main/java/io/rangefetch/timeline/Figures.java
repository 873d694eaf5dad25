package io.rangefetch.timeline;

import java.util.Locale;

/**
 * How the report and the chart write figures: durations and amounts with their units, in the root locale (a
 * decimal point whatever the machine's language, so reports compare and tests hold everywhere).
 */
final class Figures {
    private static final long MILLI = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final long KIB = 1024L;
    private static final long MIB = KIB * 1024;
    private static final long GIB = MIB * 1024;

    private Figures() {}

    /**
     * A total in seconds, so that the totals of one sentence compare at a glance ("9.2 s", "0.80 s", "0 s"); below a
     * tenth of a second in milliseconds, which say more than "0.01 s".
     */
    static String seconds(long nanos) {
        if (nanos == 0) {
            return "0 s";
        }
        if (Math.abs(nanos) < SECOND / 10) {
            return duration(nanos);
        }
        double seconds = (double) nanos / SECOND;
        return format(Math.abs(seconds) < 10 ? "%.2f s" : "%.1f s", seconds);
    }

    /** One duration in the unit that suits it: "0.42 ms", "23 ms", "1.25 s". */
    static String duration(long nanos) {
        if (nanos == 0) {
            return "0 ms";
        }
        long magnitude = Math.abs(nanos);
        if (magnitude < 10 * MILLI) {
            return format("%.2f ms", (double) nanos / MILLI);
        }
        if (magnitude < SECOND) {
            return format("%.0f ms", (double) nanos / MILLI);
        }
        double seconds = (double) nanos / SECOND;
        return format(magnitude < 10 * SECOND ? "%.2f s" : "%.1f s", seconds);
    }

    /** A time on the recording's clock, as seconds from its time zero, to the millisecond: "12.345 s". */
    static String offset(long nanos) {
        return format("%.3f s", (double) nanos / SECOND);
    }

    /** An amount of bytes: "512 B", "4.0 KiB", "12.3 MiB", "1.50 GiB". */
    static String bytes(long bytes) {
        long magnitude = Math.abs(bytes);
        if (magnitude < KIB) {
            return bytes + " B";
        }
        if (magnitude < MIB) {
            return format("%.1f KiB", (double) bytes / KIB);
        }
        if (magnitude < GIB) {
            return format("%.1f MiB", (double) bytes / MIB);
        }
        return format("%.2f GiB", (double) bytes / GIB);
    }

    /** {@code count} and the noun, plural unless one: "1 read", "3 reads". */
    static String count(long count, String noun) {
        return count(count, noun, noun + "s");
    }

    /** {@code count} and the noun: "1 retry", "2 retries". */
    static String count(long count, String singular, String plural) {
        return count + " " + (count == 1 ? singular : plural);
    }

    static String format(String pattern, Object... values) {
        return String.format(Locale.ROOT, pattern, values);
    }
}
