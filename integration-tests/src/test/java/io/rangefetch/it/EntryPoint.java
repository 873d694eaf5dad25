package io.rangefetch.it;

import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import java.io.IOException;

/**
 * A way into Rangefetch that a user takes: the {@code StreamFactory} directly, Iceberg's
 * {@code RangefetchS3FileIO}, or S3A with {@code RangefetchStreamFactory}, each with the S3 client that entry point
 * would have. The fault suite ({@link RetryFaultSuite}) and the soak ({@link FaultSoakSuite}) are written once
 * against this, and the adapter modules run them through their entry points; {@link FactoryEntryPoint} is the
 * direct one.
 *
 * <p>An entry point is made for one test from Rangefetch settings (the keys of {@code docs/CONFIGURATION.md}
 * without a prefix), through the suite's shaping proxy, and closing it closes everything it made: its factory,
 * its client, their threads.
 */
public interface EntryPoint extends AutoCloseable {
    /**
     * Opens a stream on {@code location} as this entry point's users do: knowing nothing ({@code length} &lt; 0),
     * the length, or the length and the ETag ({@code etag} non-null; ignored where {@link #passesEtag()} is false).
     */
    EntryStream open(S3Location location, long length, String etag) throws IOException;

    /** Whether a stream opened with an ETag is held to it (Iceberg's input files carry no ETag). */
    boolean passesEtag();

    /**
     * Whether a stream opened knowing nothing learns the object's length and ETag with a HEAD before its first
     * read (S3A does, as {@code FileSystem.open} does), so its version is the one at open.
     */
    boolean headsWhenOpenedKnowingNothing();

    /**
     * Whether {@code failure} says the object changed under a stream that had a version: Rangefetch's
     * {@code ObjectChangedException}, or what the entry point makes of it.
     */
    boolean isVersionChange(IOException failure);

    /**
     * Whether closing the entry point closes its client's connections. Iceberg's do not: from 1.12 its FileIOs
     * share one HTTP client per JVM and configuration ({@code HttpClientCache}), so the pool's idle connections
     * outlive a FileIO by design.
     */
    default boolean closesItsConnections() {
        return true;
    }

    /**
     * Whether a vectored read may ask for an empty range at the object's end (of an empty object). Hadoop's may
     * not: {@code VectoredReadUtils} rejects a range that starts at the end of the file with an
     * {@code EOFException}, for every stream of S3A's and so for Rangefetch's.
     */
    default boolean readsAnEmptyRangeAtTheEnd() {
        return true;
    }

    /** Bytes the factory's cache holds now. */
    long cacheMemoryBytes();

    /** The most bytes the factory's cache held at once. */
    long peakCacheMemoryBytes();

    /** What the factory has cost so far, over every stream. */
    StreamStatistics statistics();

    @Override
    void close() throws IOException;
}
