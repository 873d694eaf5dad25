package io.rangefetch.internal.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses configuration values with units. Sizes accept a bare byte count or a number with a binary unit:
 * {@code B}, {@code K}/{@code KB}/{@code KiB}, {@code M}/{@code MB}/{@code MiB}, {@code G}/{@code GB}/{@code GiB},
 * {@code T}/{@code TB}/{@code TiB}, case-insensitive; every unit is a power of 1024, as storage tuning guides
 * mean it ("8MB" is 8 MiB). Durations need a unit: {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m} or
 * {@code min}, {@code h}, {@code d}.
 *
 * <p>Not airlift's {@code DataSize}: it rejects the IEC spellings ({@code 64KiB}) our documented keys use, so
 * every value would need rewriting before it could parse.
 *
 * <p><b>Public because</b> {@code io.rangefetch.Setting} and {@code io.rangefetch.StreamConfig} parse their settings'
 * values with it.
 */
public final class ConfigValues {
    /** Parses a text value of {@code key}; throws an {@link IllegalArgumentException} naming both when it fails. */
    @FunctionalInterface
    public interface Parser<T> {
        T parse(String key, String value);
    }

    private static final Pattern NUMBER_AND_UNIT = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z%]*)\\s*");

    private ConfigValues() {}

    public static long parseSize(String key, String value) {
        Matcher matcher = match(key, value, "a size such as 65536, 64KiB or 8MB");
        String unit = matcher.group(2).toLowerCase(Locale.ROOT);
        long multiplier = switch (unit) {
            case "", "b" -> 1L;
            case "k", "kb", "kib" -> 1L << 10;
            case "m", "mb", "mib" -> 1L << 20;
            case "g", "gb", "gib" -> 1L << 30;
            case "t", "tb", "tib" -> 1L << 40;
            default -> throw invalid(key, value, "a size such as 65536, 64KiB or 8MB (unknown unit '" + unit + "')");
        };
        double bytes = Double.parseDouble(matcher.group(1)) * multiplier;
        if (bytes > Long.MAX_VALUE || bytes != Math.floor(bytes)) {
            throw invalid(key, value, "a whole number of bytes");
        }
        return (long) bytes;
    }

    /**
     * A transfer rate in bytes per second: a size as {@link #parseSize} reads it, optionally followed by
     * {@code /s} ({@code 85MB/s}, {@code 85MiB/s}, {@code 89128960}).
     */
    public static long parseRate(String key, String value) {
        String trimmed = value.trim();
        String perSecond =
                trimmed.toLowerCase(Locale.ROOT).endsWith("/s") ? trimmed.substring(0, trimmed.length() - 2) : trimmed;
        try {
            return parseSize(key, perSecond);
        } catch (IllegalArgumentException e) {
            throw invalid(key, value, "a rate such as 85MB/s or 10MiB/s");
        }
    }

    /** A non-negative fraction: a decimal number ({@code 0.25}) or a percentage ({@code 25%}). */
    public static double parseFraction(String key, String value) {
        Matcher matcher = match(key, value, "a fraction such as 0.25 or 25%");
        double amount = Double.parseDouble(matcher.group(1));
        return switch (matcher.group(2)) {
            case "" -> amount;
            case "%" -> amount / 100;
            default -> throw invalid(key, value, "a fraction such as 0.25 or 25%");
        };
    }

    public static Duration parseDuration(String key, String value) {
        Matcher matcher = match(key, value, "a duration such as 500ms, 30s or 5m");
        String unit = matcher.group(2).toLowerCase(Locale.ROOT);
        double amount = Double.parseDouble(matcher.group(1));
        double nanosPerUnit = switch (unit) {
            case "ns" -> 1;
            case "us" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "m", "min" -> 60e9;
            case "h" -> 3600e9;
            case "d" -> 86400e9;
            case "" -> throw invalid(key, value, "a duration with a unit, such as 500ms, 30s or 5m");
            default -> throw invalid(key, value, "a duration such as 500ms, 30s or 5m (unknown unit '" + unit + "')");
        };
        double nanos = amount * nanosPerUnit;
        if (nanos > Long.MAX_VALUE) {
            throw invalid(key, value, "a duration below 292 years");
        }
        return Duration.ofNanos(Math.round(nanos));
    }

    /** {@code true} or {@code false}, in any case; nothing else (a typo must not silently mean false). */
    public static boolean parseBoolean(String key, String value) {
        String trimmed = value.trim();
        if (trimmed.equalsIgnoreCase("true")) {
            return true;
        }
        if (trimmed.equalsIgnoreCase("false")) {
            return false;
        }
        throw invalid(key, value, "true or false");
    }

    public static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw invalid(key, value, "a whole number");
        }
    }

    /**
     * A memory amount: a size, or a percentage of the largest heap this JVM may use ({@code 10%}), resolved
     * against {@code maxHeapBytes}.
     */
    public static long parseMemory(String key, String value, long maxHeapBytes) {
        String trimmed = value.trim();
        if (trimmed.endsWith("%")) {
            double percent;
            try {
                percent = Double.parseDouble(
                        trimmed.substring(0, trimmed.length() - 1).trim());
            } catch (NumberFormatException e) {
                throw invalid(key, value, "a size such as 512MiB or a percentage of the heap such as 10%");
            }
            if (!(percent > 0 && percent <= 90)) {
                throw invalid(key, value, "a percentage of the heap above 0% and at most 90%");
            }
            return (long) (maxHeapBytes * percent / 100);
        }
        return parseSize(key, value);
    }

    private static final Pattern POLICY_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]*");
    private static final Pattern EXTENSION = Pattern.compile("[^\\s.;:,][^\\s;:,]*");

    /**
     * Parses {@code name:ext,ext;name:ext} (policy names to key extensions), as {@code format.extensions} is
     * written; an empty value maps nothing.
     */
    public static Map<String, List<String>> parseFormatExtensions(String key, String value) {
        String expected = "policy:extension,extension;policy:extension (for example parquet:parquet,parq;orc:orc)";
        Map<String, List<String>> byPolicy = new LinkedHashMap<>();
        for (String entry : value.split(";", -1)) {
            if (entry.isBlank()) {
                if (value.isBlank()) {
                    continue;
                }
                throw invalid(key, value, expected);
            }
            int colon = entry.indexOf(':');
            if (colon < 0) {
                throw invalid(key, value, expected);
            }
            String name = entry.substring(0, colon).trim();
            if (byPolicy.containsKey(name)) {
                throw new IllegalArgumentException(
                        "Invalid value '" + value + "' for " + key + ": policy '" + name + "' is listed twice");
            }
            byPolicy.put(name, parseExtensions(key, entry.substring(colon + 1)));
        }
        return checkedFormatExtensions(key, byPolicy);
    }

    /** Checks policy names and extensions, lower-cases the extensions, and refuses one extension in two policies. */
    public static Map<String, List<String>> checkedFormatExtensions(String key, Map<String, List<String>> byPolicy) {
        Map<String, List<String>> checked = new LinkedHashMap<>();
        Map<String, String> owner = new HashMap<>();
        for (Map.Entry<String, List<String>> entry : byPolicy.entrySet()) {
            String name = entry.getKey();
            if (name == null || !POLICY_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        key + ": policy name '" + name + "' must be lower-case letters, digits, '-' or '_'");
            }
            List<String> extensions = checkedExtensions(key, entry.getValue());
            for (String extension : extensions) {
                String previous = owner.putIfAbsent(extension, name);
                if (previous != null) {
                    throw new IllegalArgumentException(key + ": extension '" + extension + "' is given to both '"
                            + previous + "' and '" + name + "'");
                }
            }
            checked.put(name, extensions);
        }
        return Collections.unmodifiableMap(checked);
    }

    /** Parses a comma-separated list of key extensions (a leading dot is allowed); an empty value lists none. */
    public static List<String> parseExtensions(String key, String value) {
        List<String> extensions = new ArrayList<>();
        if (!value.isBlank()) {
            for (String extension : value.split(",", -1)) {
                extensions.add(extension.trim());
            }
        }
        return checkedExtensions(key, extensions);
    }

    /** Drops a leading dot, lower-cases, and refuses empty extensions or ones with spaces or separators. */
    public static List<String> checkedExtensions(String key, List<String> extensions) {
        List<String> checked = new ArrayList<>();
        for (String extension : extensions) {
            String bare = extension == null ? "" : extension.trim();
            bare = bare.startsWith(".") ? bare.substring(1) : bare;
            if (!EXTENSION.matcher(bare).matches()) {
                throw new IllegalArgumentException(key + ": '" + extension + "' is not a key extension (expected "
                        + "something like csv or .csv, without spaces, ';', ':' or ',')");
            }
            checked.add(bare.toLowerCase(Locale.ROOT));
        }
        return List.copyOf(checked);
    }

    private static Matcher match(String key, String value, String expected) {
        Matcher matcher = NUMBER_AND_UNIT.matcher(value);
        if (!matcher.matches()) {
            throw invalid(key, value, expected);
        }
        return matcher;
    }

    public static IllegalArgumentException invalid(String key, String value, String expected) {
        return new IllegalArgumentException("Invalid value '" + value + "' for " + key + ": expected " + expected);
    }
}
