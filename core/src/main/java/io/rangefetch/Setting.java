package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.config.Checks;
import io.rangefetch.internal.config.Checks.Check;
import io.rangefetch.internal.config.ConfigValues;
import io.rangefetch.internal.config.ConfigValues.Parser;
import java.time.Duration;
import java.util.Optional;

/**
 * One configuration key, said once: its key, its default as the documentation writes it, how a text value
 * parses, the range a value must be in, and one line saying what it does. {@link StreamConfig} declares the
 * stream's settings as constants ({@link StreamConfig#MAX_REQUEST_SIZE}), a format policy declares its own
 * ({@code FormatPolicy.settings()}); {@link StreamConfig#get} reads a value, {@link StreamConfig.Builder#set}
 * gives one, and {@link StreamConfig#fromProperties} parses one from text.
 *
 * <p>Design note. A key used to be written five to seven times (key constant, table row, getter, builder method,
 * documentation row, engine settings record), and the copies could drift apart. A setting is now one
 * declaration: builders, property readers, {@code toString} and the documentation test all work from it. The
 * default is kept as text and parsed like any given value when the setting is declared, so the documented
 * default and the one in force cannot drift apart, and a default out of its own range fails at once. A setting
 * with no default is derived from other settings when not given (only {@link StreamConfig} declares such
 * settings: it knows how). The factories below are the kinds of value there are; each fixes the units its text
 * accepts and the message a bad value gets (docs/CONFIGURATION.md, "Units").
 *
 * <p>This type names nothing of the rest of the API, so the format SPI and the engine may use it too.
 *
 * <p>Immutable and thread-safe. Identity is the setting's: two settings are equal only if they are the same.
 *
 * @param <T> the type of the value
 */
public final class Setting<T> {
    private final String key;
    private final String defaultText;
    private final Parser<T> parser;
    private final Check<T> check;
    private final String summary;
    // the default parsed and checked once; null when derived
    private final T defaultValue;

    private Setting(String key, String defaultText, Parser<T> parser, Check<T> check, String summary) {
        this.key = requireNonNull(key, "key is null");
        this.defaultText = defaultText;
        this.parser = requireNonNull(parser, "parser is null");
        this.check = requireNonNull(check, "check is null");
        this.summary = requireNonNull(summary, "summary is null");
        this.defaultValue = defaultText == null ? null : check(parse(defaultText));
    }

    /**
     * A byte count of at least {@code minimum}: a bare number or one with a binary unit ({@code 64KiB},
     * {@code 8MB}).
     */
    public static Setting<Long> size(String key, String defaultText, long minimum, String summary) {
        return of(
                key,
                requireNonNull(defaultText, "defaultText is null"),
                ConfigValues::parseSize,
                Checks.atLeast(minimum),
                summary);
    }

    /** A byte count fetched in one request: as {@link #size}, and at most 1 GiB (one request fills one array). */
    public static Setting<Long> requestSize(String key, String defaultText, long minimum, String summary) {
        return of(
                key,
                requireNonNull(defaultText, "defaultText is null"),
                ConfigValues::parseSize,
                Checks.requestSize(minimum),
                summary);
    }

    /**
     * A whole number without unit from {@code minimum} to {@code maximum} ({@link Integer#MAX_VALUE}: no upper
     * bound).
     */
    public static Setting<Integer> count(String key, String defaultText, int minimum, int maximum, String summary) {
        return of(
                key,
                requireNonNull(defaultText, "defaultText is null"),
                ConfigValues::parseInt,
                Checks.range(minimum, maximum),
                summary);
    }

    /** A duration of at least zero, with a unit ({@code 500ms}, {@code 30s}, {@code 5m}). */
    public static Setting<Duration> duration(String key, String defaultText, String summary) {
        return of(
                key,
                requireNonNull(defaultText, "defaultText is null"),
                ConfigValues::parseDuration,
                Checks.notNegative(),
                summary);
    }

    /** On or off: {@code true} or {@code false}, in any case, and nothing else. */
    public static Setting<Boolean> flag(String key, String defaultText, String summary) {
        return of(
                key,
                requireNonNull(defaultText, "defaultText is null"),
                ConfigValues::parseBoolean,
                Checks.any(),
                summary);
    }

    /** A fraction from {@code minimum} to {@code maximum}, both included: a decimal ({@code 0.25}) or a percentage. */
    public static Setting<Double> fraction(
            String key, String defaultText, double minimum, double maximum, String summary) {
        return of(
                key,
                requireNonNull(defaultText, "defaultText is null"),
                ConfigValues::parseFraction,
                Checks.fractionBetween(minimum, maximum, true),
                summary);
    }

    /** Bytes per second ({@code 85MB/s}). */
    static Setting<Long> rate(String key, String defaultText, long minimum, String summary) {
        return of(
                key,
                requireNonNull(defaultText, "defaultText is null"),
                ConfigValues::parseRate,
                Checks.atLeast(minimum),
                summary);
    }

    /** A byte count, or a percentage of the largest heap this JVM may use ({@code 10%}). */
    static Setting<Long> memory(String key, String defaultText, long minimum, String summary) {
        return of(
                key,
                requireNonNull(defaultText, "defaultText is null"),
                (k, v) -> ConfigValues.parseMemory(k, v, Runtime.getRuntime().maxMemory()),
                Checks.atLeast(minimum),
                summary);
    }

    /** A byte count fetched in one request, with no default of its own: derived from other settings unless given. */
    static Setting<Long> derivedRequestSize(String key, long minimum, String summary) {
        return of(key, null, ConfigValues::parseSize, Checks.requestSize(minimum), summary);
    }

    /** A setting of any type; {@code defaultText} null means derived when not given. */
    static <T> Setting<T> of(String key, String defaultText, Parser<T> parser, Check<T> check, String summary) {
        return new Setting<>(key, defaultText, parser, check, summary);
    }

    /** The key, as {@link StreamConfig#fromProperties} reads it after the prefix ({@code read.max-request-size}). */
    public String key() {
        return key;
    }

    /** The default as the documentation writes it; empty when the value is derived from other settings. */
    public Optional<String> defaultText() {
        return Optional.ofNullable(defaultText);
    }

    /** One line saying what the setting does: the documentation of the key opens with it. */
    public String summary() {
        return summary;
    }

    /**
     * Parses a text value, without checking its range (the builder checks it, once, where values given in code
     * are checked too); the exception names the key and the value.
     */
    T parse(String value) {
        return parser.parse(key, requireNonNull(value, "value is null"));
    }

    /** The value if it is in range, as it is kept (extensions lower-cased, for example). */
    T check(T value) {
        return check.check(key, requireNonNull(value, () -> "value of " + key + " is null"));
    }

    /** The default, parsed and checked; empty when the value is derived. */
    Optional<T> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    @Override
    public String toString() {
        return key;
    }
}
