package io.rangefetch.format;

import io.rangefetch.Setting;
import io.rangefetch.client.ByteRange;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What a {@link FormatPolicy} sees of one stream, and may ask of it. Thread-safe.
 *
 * <p>Design: the format package sits below the public API, so this view names none of its types: the object is
 * a bucket and a key, the caller's options reach a policy as the one thing a policy uses of them (the split's
 * end), and the factory's configuration through {@link #get(Setting)}. What a policy may do is read and prefetch
 * bytes, never wait for them.
 */
public interface FormatStream {

    /** The bucket of the object the stream reads. */
    String bucket();

    /** The key of the object the stream reads: with {@link #bucket()} and {@link #etag()}, one file version. */
    String key();

    /** The object as {@code s3://bucket/key}, for messages: the stream's location prints the same way. */
    default String uri() {
        return "s3://" + bucket() + "/" + key();
    }

    /**
     * Where the split the caller gave this stream ends (exclusive), if it gave one: the part of a text file a task
     * reads. Bytes past it are the next task's, so a policy should not read ahead past it.
     */
    OptionalLong splitEnd();

    /**
     * The value of one of the factory's settings: the stream's own ({@code StreamConfig.PREFETCH_MAX_SIZE}) or one
     * the policy declares ({@link FormatPolicy#settings()}), as configured or by default.
     */
    <T> T get(Setting<T> setting);

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
     * Starts fetching {@code ranges} into the cache at prefetch priority and returns at once, as the stream's own
     * {@code SeekableS3InputStream.prefetch} does: nearby ranges share a GET, bytes cached or in flight are not
     * fetched again, and nothing is fetched when the cache has no room or before the stream knows the object's
     * version.
     */
    void prefetch(List<ByteRange> ranges);

    /** The factory's fetch threads: for work a policy must keep off the reader's thread, such as parsing. */
    Executor executor();

    /**
     * Bytes this policy prefetched that the reader then left unread (it moved past them, or closed the stream
     * first). They count against the stream's waste bound, as the sequential ramp's and the stride's do, and what
     * passes the bound at close is carried to the next stream of the file or table.
     */
    default void predictionWasted(long bytes) {}

    /**
     * Whether predictions may fetch ahead of the reader now: false while the stream's waste (its own, and what the
     * streams of the file or table before it left) passes half the bytes the reader has read plus one initial
     * prefetch window. A policy that is told no prefetches only what the reader is about to read.
     */
    default boolean predictionsAllowed() {
        return true;
    }
}
