package io.rangefetch.internal.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;

/**
 * One configuration key, said once: the key, its default as the documentation writes it, how a text value
 * parses, the range a value must be in, and one line saying what it does. A table of these is the whole
 * description of a configuration; builders, property readers and documentation checks work from it.
 *
 * <p>The default is kept as text and parsed like any given value, so the documented default and the one in
 * force cannot drift apart, and a default out of its own range fails as soon as a builder is made. A setting
 * with no default is derived from other settings when not given (the code that builds the configuration knows
 * how).
 *
 * <p>Immutable and thread-safe. Identity is the setting's: two settings are equal only if they are the same.
 *
 * @param <T> the type of the value
 */
public final class Setting<T> {
    /** Parses a text value of {@code key}. */
    @FunctionalInterface
    public interface Parser<T> {
        /**
         * @param maxHeapBytes what a memory amount given as a percentage is a percentage of
         * @throws IllegalArgumentException naming the key and the value when {@code value} does not parse
         */
        T parse(String key, String value, long maxHeapBytes);
    }

    /** The range a value must be in; {@link Checks} has the common ones. */
    @FunctionalInterface
    public interface Check<T> {
        /**
         * Returns the value as it is to be kept (the same value, or a normalized one: lower-cased extensions).
         *
         * @throws IllegalArgumentException naming the key and the value when the value is out of range
         */
        T check(String key, T value);
    }

    private final String key;
    private final String defaultText;
    private final Parser<T> parser;
    private final Check<T> check;
    private final String summary;

    private Setting(String key, String defaultText, Parser<T> parser, Check<T> check, String summary) {
        this.key = requireNonNull(key, "key is null");
        this.defaultText = defaultText;
        this.parser = requireNonNull(parser, "parser is null");
        this.check = requireNonNull(check, "check is null");
        this.summary = requireNonNull(summary, "summary is null");
    }

    /** A setting of any type; {@code defaultText} null means derived when not given. */
    public static <T> Setting<T> of(String key, String defaultText, Parser<T> parser, Check<T> check,
            String summary) {
        return new Setting<>(key, defaultText, parser, check, summary);
    }

    /** A byte count, with units ({@link ConfigValues#parseSize}). */
    public static Setting<Long> size(String key, String defaultText, Check<Long> check, String summary) {
        return of(key, requireNonNull(defaultText, "defaultText is null"),
                (k, v, heap) -> ConfigValues.parseSize(k, v), check, summary);
    }

    /** A byte count with no default of its own: derived from other settings unless given. */
    public static Setting<Long> derivedSize(String key, Check<Long> check, String summary) {
        return of(key, null, (k, v, heap) -> ConfigValues.parseSize(k, v), check, summary);
    }

    /** Bytes per second ({@link ConfigValues#parseRate}). */
    public static Setting<Long> rate(String key, String defaultText, Check<Long> check, String summary) {
        return of(key, requireNonNull(defaultText, "defaultText is null"),
                (k, v, heap) -> ConfigValues.parseRate(k, v), check, summary);
    }

    /** A byte count or a percentage of the heap ({@link ConfigValues#parseMemory}). */
    public static Setting<Long> memory(String key, String defaultText, Check<Long> check, String summary) {
        return of(key, requireNonNull(defaultText, "defaultText is null"), ConfigValues::parseMemory, check,
                summary);
    }

    /** A whole number without unit. */
    public static Setting<Integer> count(String key, String defaultText, Check<Integer> check, String summary) {
        return of(key, requireNonNull(defaultText, "defaultText is null"),
                (k, v, heap) -> ConfigValues.parseInt(k, v), check, summary);
    }

    /** A duration with a unit ({@link ConfigValues#parseDuration}). */
    public static Setting<Duration> duration(String key, String defaultText, Check<Duration> check,
            String summary) {
        return of(key, requireNonNull(defaultText, "defaultText is null"),
                (k, v, heap) -> ConfigValues.parseDuration(k, v), check, summary);
    }

    /** On or off: {@code true} or {@code false}. */
    public static Setting<Boolean> flag(String key, String defaultText, String summary) {
        return of(key, requireNonNull(defaultText, "defaultText is null"),
                (k, v, heap) -> ConfigValues.parseBoolean(k, v), (k, v) -> v, summary);
    }

    /** A fraction, decimal or percentage ({@link ConfigValues#parseFraction}). */
    public static Setting<Double> fraction(String key, String defaultText, Check<Double> check, String summary) {
        return of(key, requireNonNull(defaultText, "defaultText is null"),
                (k, v, heap) -> ConfigValues.parseFraction(k, v), check, summary);
    }

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
     * Parses a text value, without checking its range (the caller checks it with {@link #check}, once, where
     * values given in code are checked too); the exception names the key and the value.
     */
    public T parse(String value, long maxHeapBytes) {
        return parser.parse(key, requireNonNull(value, "value is null"), maxHeapBytes);
    }

    /** The value if it is in range, as it is kept (extensions lower-cased, for example). */
    public T check(T value) {
        return check.check(key, value);
    }

    /** The default, parsed and checked; empty when the value is derived. */
    public Optional<T> defaultValue(long maxHeapBytes) {
        return defaultText().map(text -> check(parse(text, maxHeapBytes)));
    }

    @Override
    public String toString() {
        return key;
    }
}
