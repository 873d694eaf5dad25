package io.rangefetch.format;

import io.rangefetch.client.ByteRange;
import java.util.List;
import java.util.OptionalLong;

/**
 * A policy's work on one stream. The stream calls it on the threads that read it (the callbacks after reads) and
 * on the factory's fetch threads ({@link #opened()}); it must be thread-safe and must not block: a callback that
 * needs bytes asks {@link FormatStream#read} for them and goes on when they arrive. Whatever a callback throws
 * turns the session off, with one warning; the read that called it has already returned its bytes.
 */
public interface FormatSession {
    /** A session that changes nothing. */
    FormatSession NONE = new FormatSession() {};

    /**
     * How the stream's streaming reads are read: {@link AccessPattern#SEQUENTIAL} prefetches from the first read,
     * {@link AccessPattern#RANDOM} never prefetches, {@link AccessPattern#AUTO} watches the reads. A caller's
     * explicit {@code SEQUENTIAL} or {@code RANDOM} read policy hint wins over this.
     */
    default AccessPattern accessPattern() {
        return AccessPattern.AUTO;
    }

    /** What to fetch as the stream opens; see {@link OpenFetch}. */
    default OpenFetch openFetch() {
        return OpenFetch.NONE;
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
