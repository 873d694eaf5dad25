package io.rangefetch.format;

import io.rangefetch.Setting;
import java.util.List;

/**
 * Knows one kind of object (Parquet, ORC, text) and uses its layout to fetch what a reader will ask for before it
 * asks. Besides the built-in ones (text and ORC), a factory finds policies with {@link java.util.ServiceLoader}
 * (a jar lists its classes in {@code META-INF/services/io.rangefetch.format.FormatPolicy}) and creates one
 * instance of each, which lives as long as the factory: what a policy learns across files (the columns readers of
 * a schema read) belongs there.
 *
 * <p>A policy declares its own settings ({@link #settings()}), each keyed under its name ({@code parquet.*}):
 * {@code StreamConfig.fromProperties} then reads them like the stream's own, and the policy reads their values
 * through {@link FormatStream#get}. So a format adds keys without touching core.
 *
 * <p>Which policy reads a stream is decided when it opens: the caller's read policy hint
 * ({@code OpenOptions.readPolicy}) when it names a format, else the key's extension, matched against
 * {@code format.extensions} (see docs/CONFIGURATION.md). A policy that throws, here or in its session, is turned
 * off for that stream with one warning; the stream reads on as if it had none. A policy can cost bytes, never
 * correctness: every byte it fetches goes through the stream's version pinning and the factory's memory budget.
 *
 * <p>Implementations must be thread-safe and have a public no-argument constructor.
 */
public interface FormatPolicy {

    /** The name {@code format.extensions} and the read policy hints use, such as {@code parquet}. */
    String name();

    /**
     * The settings this policy reads, each with a key that starts with {@link #name()} and a dot; a setting
     * outside that namespace, or with a key already taken, is not read from properties (with a warning).
     */
    default List<Setting<?>> settings() {
        return List.of();
    }

    /**
     * Starts reading one stream: called when the stream opens, on the opening thread, so it must not block or
     * send requests itself (it can ask for a fetch through {@link FormatSession#openFetch()}).
     */
    FormatSession open(FormatStream stream);
}
