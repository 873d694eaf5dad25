package io.rangefetch.format;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.Setting;
import io.rangefetch.client.ByteRange;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

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
 * <p>Implementations must be thread-safe and have a public no-argument constructor. A policy's work on one stream
 * is a {@link FormatSession}, and what it sees of the stream a {@link FormatStream}: both are nested here, as they
 * exist only as this interface's result and parameter.
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
     * send requests itself (it can ask for the object's tail through {@link FormatSession#openTailSize()}).
     */
    FormatSession open(FormatStream stream);

    /**
     * A policy's work on one stream. The stream calls it on the threads that read it (the callbacks after reads) and
     * on the factory's fetch threads ({@link #opened()}); it must be thread-safe and must not block: a callback that
     * needs bytes asks {@link FormatStream#read} for them and goes on when they arrive. Whatever a callback throws
     * turns the session off, with one warning; the read that called it has already returned its bytes.
     */
    interface FormatSession {
        /** A session that changes nothing. */
        FormatSession NONE = new FormatSession() {};

        /**
         * How the stream's streaming reads are read: {@link ReadPolicy#SEQUENTIAL} prefetches from the first read,
         * {@link ReadPolicy#RANDOM} never prefetches, {@link ReadPolicy#AUTO} (and any other value) watches the
         * reads. A caller's explicit {@code SEQUENTIAL} or {@code RANDOM} read policy wins over this.
         */
        default ReadPolicy readPolicy() {
            return ReadPolicy.AUTO;
        }

        /**
         * How many bytes of the object's end (where Parquet and ORC keep their footers) to fetch as soon as the
         * stream opens, before the reader asks; 0 for none. When the stream does not know the object's length or
         * ETag yet, this is the request that learns them, so it costs no extra round trip. The tail is fetched as
         * asked (a policy that knows its footer's size asks for no more); a small object is fetched whole instead.
         */
        default long openTailSize() {
            return 0;
        }

        /**
         * The largest object this stream reads whole on its first read, when the format knows better than
         * {@code read.small-object-size} (which it can only lower): a column reader that projects a few columns of a
         * file reads less than all of it, so reading it whole pays only below about one round trip's worth of bytes.
         * Empty: {@code read.small-object-size}.
         */
        default OptionalLong smallObjectSize() {
            return OptionalLong.empty();
        }

        /**
         * The offset sequential prefetch never goes past ({@code Long.MAX_VALUE}: the object's end), as the end of a
         * split a task reads. Reads past it are still served, with requests of the minimum size.
         */
        default long prefetchEnd() {
            return Long.MAX_VALUE;
        }

        /**
         * Where the part of the file that holds {@code position} ends (exclusive), as the format's layout says: a
         * streaming read there ramps sequential prefetch no further. A reader that reads a small structure in many
         * small reads (a page header byte by byte, then its page) reads in a row without scanning the file: without a
         * bound, the ramp would read the columns after it that nobody asked for. {@code Long.MAX_VALUE}: no bound is
         * known here (the layout is not known yet, or the position is in no structure the format knows). Called on
         * the reader's thread before each streaming read that is planned: must be cheap and must not block.
         */
        default long structureEnd(long position) {
            return Long.MAX_VALUE;
        }

        /**
         * The open fetch was sent and its answer learned the object's length ({@link FormatStream#knownLength()}),
         * or there was no open fetch and the length was known at open. Called once, on a fetch thread or the
         * opening thread; not called when the open fetch failed (the reader's own first read then reports why).
         */
        default void opened() {}

        /** The reader read {@code [position, position + length)}, at the stream's position or positioned. */
        default void afterRead(long position, long length) {}

        /** The reader started a vectored read of {@code ranges}. */
        default void afterVectoredRead(List<ByteRange> ranges) {}

        /** The stream closed. */
        default void close() {}
    }

    /**
     * What a {@link FormatPolicy} sees of one stream, and may ask of it. Thread-safe.
     *
     * <p>Design: the format package sits below the public API, so this view names none of its types: the object is
     * a bucket and a key, the caller's options reach a policy as the one thing a policy uses of them (the split's
     * end), and the factory's configuration through {@link #get(Setting)}. What a policy may do is read and prefetch
     * bytes, never wait for them.
     */
    interface FormatStream {

        /** The bucket of the object the stream reads. */
        String bucket();

        /** The key of the object the stream reads: with {@link #bucket()} and {@link #etag()}, one file version. */
        String key();

        /**
         * The table the object belongs to, as far as its key tells: its folder, less the partition folders
         * ({@code name=value}) at the folder's end ({@code w/db/t/data/day=1/f.parquet} belongs to
         * {@code w/db/t/data}). The files of one table share a writer and a schema, so what a policy learns of some
         * fits the others; the engine keys what it learns across files the same way.
         */
        String table();

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

        /**
         * Who the stream reads as, as an opaque value: two streams answer equal values exactly when each may be served
         * what the other fetched (the same principal's credentials and the same SSE-C key, or none). Whatever a policy
         * derives from a stream's bytes and keeps for other streams (a parsed footer) must be keyed by it, next to the
         * file version, or a stream could learn from bytes its own identity may not read. Never a secret; its
         * {@code toString} prints a tag that tells identities apart and reveals nothing. The default, this stream
         * itself, shares with no other stream.
         */
        default Object readerIdentity() {
            return this;
        }

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
}
