package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectAddress;
import io.rangefetch.client.ObjectContent;
import io.rangefetch.client.ObjectMetadata;
import io.rangefetch.client.PreconditionFailedException;
import io.rangefetch.client.RangeGetRequest;
import io.rangefetch.client.RangeNotSatisfiableException;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.fetch.FetchPriority;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.FirstRequest;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The version of one object one stream reads: its ETag and length once known, and how they are learned and
 * pinned.
 *
 * <p>Until the ETag is known, one request at a time learns it (with the length, from {@code Content-Range}):
 * a reader's first GET, or the open fetch a format policy asked for, which readers then wait for instead of
 * sending their own. Every later GET carries {@code If-Match} and every answer's ETag is checked, and cached
 * bytes are keyed by ETag. A 412 before the stream has returned any byte (and without an ETag the caller
 * insisted on) drops what was learned so the read starts over on the new version; after, it is an
 * {@link ObjectChangedException}, and the old version's cached bytes are dropped. Thread-safe.
 */
final class ObjectVersion {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectVersion.class);

    private final ReaderContext context;
    private final ObjectAddress address;
    private final boolean etagPinnedByCaller;
    private final StatisticsCounter statistics;
    private final Object lock = new Object();
    private volatile String etag;
    private volatile long length;
    private volatile boolean served;
    // The open fetch a format policy asked for, while it runs: reads that would learn the version wait for it.
    private volatile CompletableFuture<Void> opening;
    private volatile FetchScheduler.Ticket openTicket;

    ObjectVersion(ReaderContext context, ObjectAddress address, long knownLength, String knownEtag,
            boolean etagPinnedByCaller, StatisticsCounter statistics) {
        this.context = requireNonNull(context, "context is null");
        this.address = requireNonNull(address, "address is null");
        this.length = knownLength;
        this.etag = knownEtag;
        this.etagPinnedByCaller = etagPinnedByCaller;
        this.statistics = requireNonNull(statistics, "statistics is null");
    }

    /** The ETag, or {@code null} before it is known; never sends a request. */
    String etag() {
        return etag;
    }

    /** The length, or -1 before it is known; never sends a request. */
    long length() {
        return length;
    }

    boolean isKnown() {
        return etag != null && length >= 0;
    }

    /** The stream returned bytes of this version: a change is now an error, not a silent move. */
    void markServed() {
        served = true;
    }

    /** The length, sending a HEAD only when nothing has told it yet (an open fetch running is waited for). */
    long lengthOrHead() throws IOException {
        long known = length;
        if (known >= 0) {
            return known;
        }
        awaitOpening();
        synchronized (lock) {
            if (length < 0) {
                learn(head());
            }
            return length;
        }
    }

    /**
     * Starts the open fetch a format policy asked for, as the request that learns the version, in a scheduler
     * slot; then runs {@code learned}, unless it failed (the reader's own first read then meets the failure).
     */
    void startLearning(boolean tail, long start, int len, AccessHint hint, long prefetchEnd, Runnable learned) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        opening = done;
        openTicket = context.scheduler().submit(FetchPriority.DEMAND, abort -> {
            boolean succeeded = false;
            try {
                // sent from this slot, and without waiting for the open fetch: this is it
                fetchFirst(tail ? -1 : start, len, tail, hint, prefetchEnd, call -> call.run(abort));
                succeeded = true;
            } catch (IOException | RuntimeException e) {
                // the reader's first read sends its own request and reports what goes wrong
                LOG.debug("Open fetch of {} failed", address, e);
            } finally {
                done.complete(null);
            }
            if (succeeded) {
                learned.run();
            }
        }, failure -> done.complete(null));
    }

    /** Stops the open fetch if it still runs: the stream closed. */
    void stopLearning() {
        FetchScheduler.Ticket open = openTicket;
        if (open != null && !opening.isDone()) {
            open.cancel();
        }
    }

    /** Waits for the open fetch, if one runs: it is learning the version a read would learn. */
    private void awaitOpening() throws InterruptedIOException {
        CompletableFuture<Void> pending = opening;
        if (pending == null || pending.isDone()) {
            return;
        }
        try {
            pending.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while opening " + address);
            interrupted.initCause(e);
            throw interrupted;
        } catch (ExecutionException e) {
            throw new IllegalStateException("The open fetch never fails its future", e);
        }
    }

    /**
     * Sends the request that learns the ETag (and length), for a read of {@code len} bytes at {@code position}
     * (or of the tail), shaped by the stream's {@code hint} and {@code prefetchEnd}. Its bytes go into the cache
     * when the budget has room; otherwise only exactly the asked bytes are fetched and handed back uncached.
     * Returns {@code null} when nothing needed learning any more, or when the read starts past the end (the
     * length is then known). An open fetch still running is waited for first: it is learning the same.
     */
    FirstFetch fetchFirst(long position, int len, boolean tail, AccessHint hint, long prefetchEnd)
            throws IOException {
        awaitOpening();
        return fetchFirst(position, len, tail, hint, prefetchEnd,
                call -> context.scheduler().call(FetchPriority.DEMAND, call));
    }

    private FirstFetch fetchFirst(long position, int len, boolean tail, AccessHint hint, long prefetchEnd,
            Sender sender) throws IOException {
        synchronized (lock) {
            if (etag != null && length >= 0) {
                return null;
            }
            FirstRequest first = context.planner().firstRequest(Math.max(position, 0), len, length, tail, hint,
                    prefetchEnd);
            long reservedBytes = first.range() != null ? first.range().length() : first.suffixLength();
            boolean reserved = context.cache().reserve(reservedBytes);
            RangeGetRequest request;
            if (reserved) {
                request = first.range() != null
                        ? RangeGetRequest.of(address, first.range(), etag)
                        : RangeGetRequest.suffix(address, first.suffixLength(), etag);
            } else {
                reservedBytes = 0;
                request = tail
                        ? RangeGetRequest.suffix(address, len, etag)
                        : RangeGetRequest.of(address, ByteRange.ofLength(position, len), etag);
            }
            try {
                FirstAnswer answer;
                try {
                    answer = sender.send(abort -> {
                        try (ObjectContent content = context.client().get(request)) {
                            abort.attach(content);
                            ObjectMetadata metadata = content.metadata();
                            checkEtag(request, metadata.etag());
                            byte[] data = Bodies.readExactly(request, content,
                                    expectedAnswer(request, metadata.length()));
                            return new FirstAnswer(content.range(), metadata, data);
                        }
                    });
                } catch (RangeNotSatisfiableException e) {
                    statistics.failedGetSent();
                    learn(head());
                    return null;
                } catch (IOException e) {
                    statistics.failedGetSent();
                    throw e;
                }
                byte[] data = answer.data();
                statistics.getSent(data.length, false);
                boolean cached = false;
                if (reserved) {
                    context.cache().release(reservedBytes - data.length);
                    reservedBytes = data.length;
                    // Indexed before the version is published: a concurrent reader that then sees the ETag
                    // finds these bytes instead of fetching them again.
                    cached = insert(answer.metadata().etag(), answer.range(), data);
                    if (cached) {
                        reservedBytes = 0;
                    }
                }
                learn(answer.metadata());
                return new FirstFetch(answer.range(), data, cached);
            } finally {
                context.cache().release(reservedBytes);
            }
        }
    }

    /** How the first request is sent: from a reader, as a scheduled call; from the open fetch, in its own slot. */
    private interface Sender {
        FirstAnswer send(FetchScheduler.Call<FirstAnswer> call) throws IOException;
    }

    private boolean insert(String learnedEtag, ByteRange range, byte[] data) {
        ObjectId id = objectId(learnedEtag);
        ReentrantLock objectLock = context.cache().lockFor(id);
        objectLock.lock();
        try {
            return context.cache().insertLoaded(id, range, data, statistics);
        } finally {
            objectLock.unlock();
        }
    }

    /**
     * A GET for {@code pinned} answered 412, or with another ETag. Returns {@code true} when the stream starts over
     * on the new version (nothing was served yet, and the caller did not insist on the ETag): the version is
     * unknown again. Otherwise throws {@link ObjectChangedException}; returns {@code false} when another read
     * already handled the change.
     */
    boolean onChanged(String pinned, PreconditionFailedException failure) throws IOException {
        synchronized (lock) {
            if (!Objects.equals(etag, pinned)) {
                return false; // another read of this stream already handled it
            }
            if (pinned == null) {
                throw failure;
            }
            forget(pinned);
            if (served || etagPinnedByCaller) {
                String current = null;
                try {
                    current = head().etag();
                } catch (IOException e) {
                    failure.addSuppressed(e);
                }
                throw new ObjectChangedException(address.bucket(), address.key(), pinned, current, failure);
            }
            etag = null;
            length = -1;
            return true;
        }
    }

    /** A GET for {@code pinned} found another version: drop the old bytes, and say what happened. */
    ObjectChangedException changedUnder(String pinned, PreconditionFailedException failure) {
        forget(pinned);
        return new ObjectChangedException(address.bucket(), address.key(), pinned, null, failure);
    }

    /** Drops what the factory holds of version {@code pinned}: its bytes, and its length and ETag. */
    private void forget(String pinned) {
        context.cache().invalidate(objectId(pinned));
        context.metadata().invalidate(address.bucket(), address.key(), address.versionId());
    }

    private ObjectMetadata head() throws IOException {
        statistics.headSent();
        return context.scheduler().call(FetchPriority.DEMAND, abort -> context.client().head(address));
    }

    // Called with the lock held.
    private void learn(ObjectMetadata metadata) throws PreconditionFailedException {
        if (etag != null && !etag.equals(metadata.etag())) {
            throw new PreconditionFailedException(address + " now has ETag " + metadata.etag() + ", not " + etag, null);
        }
        etag = metadata.etag();
        length = metadata.length();
        context.metadata().put(address.bucket(), address.key(), address.versionId(), metadata);
    }

    /** Fails a GET that asked for one ETag and was answered with another. */
    static void checkEtag(RangeGetRequest request, String answered) throws PreconditionFailedException {
        String expected = request.ifMatch();
        if (expected != null && !expected.equals(answered)) {
            throw new PreconditionFailedException("GET " + request.describe() + " answered ETag " + answered
                    + " although it asked for " + expected, null);
        }
    }

    /** The range a GET must answer for an object of {@code total} bytes: the request clipped at the end. */
    private static ByteRange expectedAnswer(RangeGetRequest request, long total) throws IOException {
        if (request.isSuffix()) {
            return new ByteRange(Math.max(0, total - request.suffixLength()), total);
        }
        ByteRange asked = request.range();
        if (asked.start() >= total) {
            throw new IOException("GET " + request.describe() + " answered bytes of an object of " + total + " bytes");
        }
        return new ByteRange(asked.start(), Math.min(asked.end(), total));
    }

    ObjectId objectId(String pinnedEtag) {
        return new ObjectId(address.bucket(), address.key(), pinnedEtag);
    }

    /** What the first request answered. */
    private record FirstAnswer(ByteRange range, ObjectMetadata metadata, byte[] data) {}

    /** The bytes of the first request, and whether they went into the cache. */
    record FirstFetch(ByteRange range, byte[] data, boolean cached) {
        int copyTo(long position, byte[] buffer, int offset, int len) {
            int count = (int) Math.min(len, range.end() - position);
            System.arraycopy(data, (int) (position - range.start()), buffer, offset, count);
            return count;
        }
    }
}
