package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.GetPhases;
import io.rangefetch.internal.events.GetPhases.Phase;
import io.rangefetch.internal.fetch.BackOff;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.FirstRequest;
import io.rangefetch.internal.plan.ReadPlanner;
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
    private final BlockCache cache;
    private final RetryingSender gets;
    private final ObjectAddress address;
    private final AccessIdentity identity;
    private final StatisticsCounter statistics;
    // what the request is doing, for the reads that wait for the version to say on what
    private final GetPhases phases = GetPhases.start();

    FirstFetch(ReadEngine engine, ObjectAddress address, AccessIdentity identity, StatisticsCounter statistics) {
        requireNonNull(engine, "engine is null");
        this.cache = engine.cache();
        this.gets = engine.sender();
        this.address = requireNonNull(address, "address is null");
        this.identity = requireNonNull(identity, "identity is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
    }

    /**
     * The read that needs the version: {@code length} bytes at {@code position}, or the last {@code length}
     * bytes ({@code tail}); {@code buffer} (absolute index {@code index} on) is where the reader wants them, or
     * {@code null} when nobody waits for bytes (the open fetch, a vectored read learning first).
     */
    record Shape(
            long position,
            int length,
            boolean tail,
            AccessHint hint,
            long prefetchEnd,
            ReadPlanner planner,
            ByteBuffer buffer,
            int index) {
        Shape {
            requireNonNull(hint, "hint is null");
            requireNonNull(planner, "planner is null");
            if (length < 1 || (!tail && position < 0)) {
                throw new IllegalArgumentException("Cannot learn a version for " + length + " bytes at " + position);
            }
        }

        boolean hasBuffer() {
            return buffer != null;
        }

        /** Whether this is a format policy's open fetch of the tail: a tail nobody waits on (see FormatSession.openTailSize). */
        boolean isOpenTail() {
            return tail && buffer == null;
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
    private static final class PastTheEnd extends IOException {
        private static final long serialVersionUID = 1L;

        PastTheEnd(Throwable cause) {
            super("The read starts past the end of the object", cause);
        }
    }

    /**
     * Sends the request; returns what it learned, {@code Learned(null, null)} for an empty object. The caller
     * publishes the version.
     *
     * <p>A read that starts at or past the end (the GET answered 416) learns the version with a HEAD, sent here, in
     * the same learning request: the stream stays learning until the version is known, so no other read learns it
     * in between and the read that asked is counted on the version it reports the end of file of. (Had it let go
     * between the 416 and the HEAD, another read could have pinned the version meanwhile with the asking read not
     * counted on it, and then moved the stream silently to a newer version after that read reported the old end.)
     *
     * @param knownLength the length if known (the caller gave it), else -1
     * @param knownEtag the ETag the caller insisted on, else {@code null}: sent as {@code If-Match}
     */
    Learned run(Shape shape, long knownLength, String knownEtag, FetchAbort abort) throws IOException {
        boolean backsOff = false;
        try {
            return learn(shape, knownLength, knownEtag, abort);
        } catch (PastTheEnd e) {
            return new Learned(gets.head(address, abort, statistics), null);
        } catch (BackOff e) {
            backsOff = true;
            throw e;
        } finally {
            if (!backsOff) {
                phases.enter(Phase.ENDED);
            }
        }
    }

    /** What the request is doing, for the reads that wait for the version. */
    GetPhases phases() {
        return phases;
    }

    private Learned learn(Shape shape, long knownLength, String knownEtag, FetchAbort abort) throws IOException {
        long position = Math.max(shape.position(), 0);
        FirstRequest first = shape.isOpenTail()
                ? shape.planner().openTail(shape.length(), knownLength)
                : shape.planner()
                        .firstRequest(
                                position, shape.length(), knownLength, shape.tail(), shape.hint(), shape.prefetchEnd());
        long planned = first.range() != null ? first.range().length() : first.suffixLength();
        if (cache.reserve(planned)) {
            RangeGetRequest request = first.range() != null
                    ? RangeGetRequest.of(address, first.range(), knownEtag)
                    : RangeGetRequest.suffix(address, first.suffixLength(), knownEtag);
            return intoCache(request, planned, abort, causeOf(shape));
        }
        long maxRequest = shape.planner().settings().maxRequestSize();
        int size = shape.hasBuffer() ? (int) Math.min(shape.length(), maxRequest) : 1;
        RangeGetRequest request = shape.tail()
                ? RangeGetRequest.suffix(address, size, knownEtag)
                : RangeGetRequest.of(address, ByteRange.ofLength(position, size), knownEtag);
        return direct(request, shape, abort);
    }

    private static FetchCause causeOf(Shape shape) {
        return shape.tail() ? FetchCause.FOOTER : FetchCause.FIRST_READ;
    }

    private Learned intoCache(RangeGetRequest request, long reserved, FetchAbort abort, FetchCause cause)
            throws IOException {
        long held = reserved;
        try {
            Receiver receiver = new Receiver(request, Into.ARRAY, null, 0, -1);
            ObjectMetadata metadata = send(request, abort, receiver, cause);
            if (metadata == null) {
                return new Learned(null, null);
            }
            byte[] data = receiver.data;
            cache.release(held - data.length);
            held = data.length;
            if (insert(metadata.etag(), receiver.answered, data)) {
                held = 0; // the block holds the reservation now
            }
            return new Learned(metadata, null);
        } finally {
            cache.release(held);
        }
    }

    private Learned direct(RangeGetRequest request, Shape shape, FetchAbort abort) throws IOException {
        Receiver receiver = shape.hasBuffer()
                ? new Receiver(request, Into.BUFFER, shape.buffer(), shape.index(), shape.tail() ? shape.length() : -1)
                : new Receiver(request, Into.NOWHERE, null, 0, -1);
        ObjectMetadata metadata = send(request, abort, receiver, causeOf(shape));
        if (metadata == null) {
            return new Learned(null, null);
        }
        return new Learned(metadata, shape.hasBuffer() ? receiver.answered : null);
    }

    /** Sends the request; {@code null} when the object is empty. */
    private ObjectMetadata send(RangeGetRequest request, FetchAbort abort, Receiver receiver, FetchCause cause)
            throws IOException {
        try {
            return gets.fetch(request, abort, statistics, false, cause, receiver);
        } catch (HttpStatusException e) {
            if (!e.isRangeNotSatisfiable()) {
                throw e;
            }
            if (request.isSuffix() || request.range().start() == 0) {
                return null;
            }
            throw new PastTheEnd(e);
        }
    }

    /**
     * Where the learning request's bytes go: a new array of the answer's size (it was reserved for), the reader's
     * buffer (a tail read's bytes at the end of what it wants), or nowhere (a learner without a buffer). The first
     * answer fixes the range; a resumed answer continues into the same place.
     */
    /** Where a learning request's bytes go. */
    private enum Into {
        ARRAY,
        BUFFER,
        NOWHERE
    }

    private final class Receiver implements RetryingSender.Receiver {
        private final RangeGetRequest request;
        private final Into into;
        private final ByteBuffer buffer;
        private final int index;
        // a tail read's length: its bytes end at index + min(tailLength, object length); -1 for other reads
        private final long tailLength;
        private ByteRange answered;
        private byte[] data;
        private int base;
        private long next;

        Receiver(RangeGetRequest request, Into into, ByteBuffer buffer, int index, long tailLength) {
            this.request = request;
            this.into = into;
            this.buffer = buffer;
            this.index = index;
            this.tailLength = tailLength;
        }

        @Override
        public GetPhases phases() {
            return phases;
        }

        @Override
        public boolean mayWaitOffTheSlot() {
            return answered == null; // a run after the backoff plans and receives anew: nothing to lose before this
        }

        @Override
        public long next() {
            return next;
        }

        @Override
        public long end() {
            return answered == null ? -1 : answered.end();
        }

        @Override
        public void receive(ObjectContent content) throws IOException {
            if (answered == null) {
                checkAnswer(request, content.range(), content.metadata().length());
                answered = content.range();
                next = answered.start();
                // a tail read wants the last min(length, object length) bytes; these are the last of them
                long wanted = tailLength >= 0
                        ? Math.min(tailLength, content.metadata().length())
                        : answered.length();
                base = (int) (wanted - answered.length());
            } else {
                Bodies.checkRange(request, content, new ByteRange(next, answered.end()));
            }
            Bodies.Cursor cursor = new Bodies.Cursor(request, content);
            try {
                int done = (int) (next - answered.start());
                int length = (int) (answered.end() - next);
                switch (into) {
                    case BUFFER -> cursor.into(buffer, index + base + done, length);
                    case ARRAY -> {
                        if (data == null) {
                            data = new byte[Math.toIntExact(answered.length())];
                        }
                        cursor.into(data, done, length);
                    }
                    case NOWHERE -> cursor.skipTo(answered.end());
                }
            } finally {
                next = cursor.position();
            }
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
                throw new IOException(
                        "GET " + request.describe() + " answered bytes of an object of " + total + " bytes");
            }
            expected = new ByteRange(asked.start(), Math.min(asked.end(), total));
        }
        if (!answered.equals(expected)) {
            throw new IOException(
                    "GET " + request.describe() + " answered range " + answered + " instead of " + expected);
        }
    }

    private boolean insert(String etag, ByteRange range, byte[] data) {
        ObjectId id = new ObjectId(address.bucket(), address.key(), etag, identity);
        ReentrantLock objectLock = cache.lockFor(id);
        objectLock.lock();
        try {
            return cache.insertLoaded(id, range, data, statistics);
        } finally {
            objectLock.unlock();
        }
    }
}
