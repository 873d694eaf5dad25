package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectAddress;
import io.rangefetch.client.ObjectMetadata;
import io.rangefetch.client.RangeGetRequest;
import io.rangefetch.client.RangeNotSatisfiableException;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.FirstRequest;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The GET that learns a stream's version (its ETag, and its length from {@code Content-Range}), shaped for the
 * read that needs it. Runs on a fetch thread, in the slot {@link ObjectVersion} submitted it to; never waits for
 * anything else.
 *
 * <p><b>Where its bytes go.</b> The planner sizes it ({@code ReadPlanner.firstRequest}: a small object whole, a
 * reader at 0 reads on, a tail read a suffix; never over {@code read.max-request-size}). When the budget can
 * reserve that many bytes, they are read into a reserved array and indexed in the cache under the learned ETag
 * (or given back, if another stream cached them first). When it cannot, a reader's own bytes are read straight
 * into its buffer, at most {@code read.max-request-size} of them; a learner without a buffer (a vectored read)
 * asks for one byte. Memory is never taken around the budget.
 *
 * <p><b>Empty objects.</b> A 416 to a suffix, or to a range from 0, means the object is empty: that is what is
 * learned, with no further request. A 416 to a range further in says only that the read starts past the end:
 * the reader learns the length with a HEAD on its own thread.
 */
final class FirstFetch {
    private final ReaderContext context;
    private final ObjectAddress address;
    private final StatisticsCounter statistics;

    FirstFetch(ReaderContext context, ObjectAddress address, StatisticsCounter statistics) {
        this.context = requireNonNull(context, "context is null");
        this.address = requireNonNull(address, "address is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
    }

    /**
     * The read that needs the version: {@code length} bytes at {@code position}, or the last {@code length}
     * bytes ({@code tail}); {@code buffer} (absolute index {@code index} on) is where the reader wants them, or
     * {@code null} when nobody waits for bytes (the open fetch, a vectored read learning first).
     */
    record Shape(long position, int length, boolean tail, AccessHint hint, long prefetchEnd, ByteBuffer buffer,
            int index) {
        Shape {
            requireNonNull(hint, "hint is null");
            if (length < 1 || (!tail && position < 0)) {
                throw new IllegalArgumentException("Cannot learn a version for " + length + " bytes at " + position);
            }
        }

        boolean hasBuffer() {
            return buffer != null;
        }
    }

    /**
     * What the GET learned; {@code direct} is the object range it wrote into the shape's buffer ({@code null}
     * when it wrote none: the bytes are cached, or nobody had a buffer).
     */
    record Learned(ObjectMetadata metadata, ByteRange direct) {
        boolean isEmpty() {
            return metadata == null;
        }
    }

    /** The 416 answered a range that starts further in: the read starts at or past the end of the object. */
    static final class PastTheEnd extends IOException {
        private static final long serialVersionUID = 1L;

        PastTheEnd(Throwable cause) {
            super("The read starts past the end of the object", cause);
        }
    }

    /**
     * Sends the request; returns what it learned, {@code Learned(null, null)} for an empty object. The caller
     * publishes the version.
     *
     * @param knownLength the length if known (the caller gave it), else -1
     * @param knownEtag the ETag the caller insisted on, else {@code null}: sent as {@code If-Match}
     */
    Learned run(Shape shape, long knownLength, String knownEtag, FetchAbort abort) throws IOException {
        long position = Math.max(shape.position(), 0);
        FirstRequest first = context.planner().firstRequest(position, shape.length(), knownLength, shape.tail(),
                shape.hint(), shape.prefetchEnd());
        long planned = first.range() != null ? first.range().length() : first.suffixLength();
        if (context.cache().reserve(planned)) {
            RangeGetRequest request = first.range() != null
                    ? RangeGetRequest.of(address, first.range(), knownEtag)
                    : RangeGetRequest.suffix(address, first.suffixLength(), knownEtag);
            return intoCache(request, planned, abort);
        }
        long maxRequest = context.planner().settings().maxRequestSize();
        int size = shape.hasBuffer() ? (int) Math.min(shape.length(), maxRequest) : 1;
        RangeGetRequest request = shape.tail()
                ? RangeGetRequest.suffix(address, size, knownEtag)
                : RangeGetRequest.of(address, ByteRange.ofLength(position, size), knownEtag);
        return direct(request, shape, abort);
    }

    private Learned intoCache(RangeGetRequest request, long reserved, FetchAbort abort) throws IOException {
        long held = reserved;
        try {
            Answer answer = send(request, abort, content -> {
                byte[] data = new byte[Math.toIntExact(content.range().length())];
                Bodies.fill(request, content, data, 0, data.length);
                return data;
            });
            if (answer == null) {
                return new Learned(null, null);
            }
            byte[] data = (byte[]) answer.value();
            context.cache().release(held - data.length);
            held = data.length;
            if (insert(answer.metadata().etag(), answer.range(), data)) {
                held = 0; // the block holds the reservation now
            }
            return new Learned(answer.metadata(), null);
        } finally {
            context.cache().release(held);
        }
    }

    private Learned direct(RangeGetRequest request, Shape shape, FetchAbort abort) throws IOException {
        Answer answer = send(request, abort, content -> {
            ByteRange range = content.range();
            if (!shape.hasBuffer()) {
                Bodies.skip(request, content, range.length());
                return null;
            }
            // a tail read wants the last min(length, object length) bytes; these are the last of them
            long wanted = shape.tail() ? Math.min(shape.length(), content.metadata().length()) : range.length();
            int index = shape.index() + (int) (wanted - range.length());
            Bodies.fill(request, content, shape.buffer(), index, (int) range.length());
            return range;
        });
        if (answer == null) {
            return new Learned(null, null);
        }
        return new Learned(answer.metadata(), (ByteRange) answer.value());
    }

    private record Answer(ObjectMetadata metadata, ByteRange range, Object value) {}

    /** Sends the request; {@code null} when the object is empty. */
    private Answer send(RangeGetRequest request, FetchAbort abort, GetPath.Answer<Object> body) throws IOException {
        try {
            return context.gets().exchange(request, abort, statistics, false, content -> {
                checkAnswer(request, content.range(), content.metadata().length());
                return new Answer(content.metadata(), content.range(), body.read(content));
            });
        } catch (RangeNotSatisfiableException e) {
            if (request.isSuffix() || request.range().start() == 0) {
                return null;
            }
            throw new PastTheEnd(e);
        }
    }

    /** Refuses an answer that holds other bytes than the request, clipped at the object's end, asked for. */
    private static void checkAnswer(RangeGetRequest request, ByteRange answered, long total) throws IOException {
        ByteRange expected;
        if (request.isSuffix()) {
            expected = new ByteRange(Math.max(0, total - request.suffixLength()), total);
        } else {
            ByteRange asked = request.range();
            if (asked.start() >= total) {
                throw new IOException("GET " + request.describe() + " answered bytes of an object of " + total
                        + " bytes");
            }
            expected = new ByteRange(asked.start(), Math.min(asked.end(), total));
        }
        if (!answered.equals(expected)) {
            throw new IOException("GET " + request.describe() + " answered range " + answered + " instead of "
                    + expected);
        }
    }

    private boolean insert(String etag, ByteRange range, byte[] data) {
        ObjectId id = new ObjectId(address.bucket(), address.key(), etag);
        ReentrantLock objectLock = context.cache().lockFor(id);
        objectLock.lock();
        try {
            return context.cache().insertLoaded(id, range, data, statistics);
        } finally {
            objectLock.unlock();
        }
    }
}
