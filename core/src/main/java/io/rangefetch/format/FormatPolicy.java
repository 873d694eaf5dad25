package io.rangefetch.format;

/**
 * Knows one kind of object (Parquet, ORC, text) and uses its layout to fetch what a reader will ask for before it
 * asks. A factory finds policies with {@link java.util.ServiceLoader} (a jar lists its classes in
 * {@code META-INF/services/io.rangefetch.format.FormatPolicy}) and creates one instance of each, which lives as
 * long as the factory: what a policy learns across files (the columns readers of a schema read) belongs there.
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
     * Starts reading one stream: called when the stream opens, on the opening thread, so it must not block or
     * send requests itself (it can ask for a fetch through {@link FormatSession#openFetch()}).
     */
    FormatSession open(FormatStream stream);
}
