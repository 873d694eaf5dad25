package io.rangefetch.format;

/**
 * What a policy wants fetched as soon as a stream opens, before the reader asks: the object's tail (where
 * Parquet and ORC keep their footers) or a range from its start. When the stream does not know the object's
 * length or ETag yet, this is the request that learns them, so it costs no extra round trip. A range from the
 * start is never smaller than {@code read.min-request-size}; a tail reaches the object's end, so it is fetched
 * as asked (a policy that knows its footer's size asks for no more); a small object is fetched whole instead.
 *
 * @param tail whether {@code length} bytes are wanted from the end ({@code start} is then 0)
 */
public record OpenFetch(boolean tail, long start, long length) {
    /** Nothing: the stream sends its first request when the reader first reads. */
    public static final OpenFetch NONE = new OpenFetch(false, 0, 0);

    /** Checks that the fetch is one a stream can send: a tail has no start, and nothing is negative. */
    public OpenFetch {
        if (start < 0 || length < 0 || (tail && start != 0)) {
            throw new IllegalArgumentException(
                    "Bad open fetch: tail=" + tail + ", start=" + start + ", length=" + length);
        }
    }

    /** The last {@code length} bytes of the object. */
    public static OpenFetch tail(long length) {
        return length == 0 ? NONE : new OpenFetch(true, 0, length);
    }

    /** {@code length} bytes from {@code start}. */
    public static OpenFetch range(long start, long length) {
        return length == 0 ? NONE : new OpenFetch(false, start, length);
    }

    /** Whether nothing is to be fetched at open. */
    public boolean isNone() {
        return length == 0;
    }
}
