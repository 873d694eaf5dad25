package io.rangefetch.benchmarks.report;

import java.util.Locale;

/** How the reports write numbers; a missing figure is "-". */
public final class Figures {

    public static final String MISSING = "-";

    private Figures() {}

    public static String seconds(Double seconds) {
        if (seconds == null) {
            return MISSING;
        }
        return seconds < 10 ? format("%.3f s", seconds) : format("%.1f s", seconds);
    }

    public static String count(Long count) {
        return count == null ? MISSING : format("%,d", count);
    }

    /** Decimal megabytes (10^6 bytes), as network rates are quoted. */
    public static String megabytes(Long bytes) {
        if (bytes == null) {
            return MISSING;
        }
        double mb = bytes / 1e6;
        return mb < 10 ? format("%.2f", mb) : format("%.1f", mb);
    }

    public static String ratio(Double ratio) {
        if (ratio == null) {
            return MISSING;
        }
        return ratio < 10 ? format("%.2f×", ratio) : format("%.0f×", ratio);
    }

    /** A markdown table row of {@code cells}. */
    static String row(String... cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }

    private static String format(String pattern, Object value) {
        return String.format(Locale.ROOT, pattern, value);
    }
}
