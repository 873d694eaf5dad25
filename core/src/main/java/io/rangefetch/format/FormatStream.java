package io.rangefetch.format;

import io.rangefetch.OpenOptions;
import io.rangefetch.S3Location;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.ByteRange;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/** What a {@link FormatPolicy} sees of one stream, and may ask of it. Thread-safe. */
public interface FormatStream {

    S3Location location();

    /** What the caller said when it opened the stream (length, ETag, read policy hint, split). */
    OpenOptions options();

    /** The factory's settings. */
    StreamConfig config();

    /** The object's length once the stream knows it; never sends a request. */
    OptionalLong knownLength();

    /** The ETag of the version the stream is pinned to, once it knows it; never sends a request. */
    Optional<String> etag();

    /**
     * The bytes of {@code range}, from the cache or fetched, pinned to the stream's version like any read;
     * never waits. The future fails if the range is not inside the object or the fetch fails. Its callbacks may
     * run on a fetch thread, or on this thread when the bytes are cached. These bytes are the policy's, not the
     * reader's: they do not count as served in the statistics, and a stream whose reader got no byte yet still
     * moves silently to a new version of the object.
     */
    CompletableFuture<ByteBuffer> read(ByteRange range);

    /**
     * Starts fetching {@code ranges} into the cache at prefetch priority, coalesced as a vectored read is:
     * see {@link io.rangefetch.SeekableS3InputStream#prefetch}.
     */
    void prefetch(List<ByteRange> ranges);

    /** The factory's fetch threads: for work a policy must keep off the reader's thread, such as parsing. */
    Executor executor();
}
