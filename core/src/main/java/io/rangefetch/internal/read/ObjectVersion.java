package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.events.GetPhases;
import io.rangefetch.internal.events.WaitSplit;
import io.rangefetch.internal.fetch.BackOff;
import io.rangefetch.internal.fetch.FetchPriority;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which version of its object a stream reads, how it is learned, and what happens when the object changes.
 *
 * <p><b>One field.</b> The stream's knowledge is one immutable {@link State} in one atomic reference: not known
 * yet ({@link Unknown}, with what the caller said), being learned ({@link Learning}), pinned
 * ({@link PinnedVersion}: ETag and length), or failed for good ({@link Changed}). A read reads it once per
 * attempt and uses that snapshot for everything: it never sees the ETag of one version with the length of
 * another.
 *
 * <p><b>Learning.</b> One request at a time learns the version ({@link FirstFetch}, run in a scheduler slot, or
 * a HEAD on a reader's thread); everyone else who needs it waits for that one, interruptibly. No monitor is held
 * across a request. A reader whose learning request it was and who is interrupted cancels it when nobody else
 * waits for it (and always when its bytes were going into the reader's own buffer, which it then waits to be
 * left alone).
 *
 * <p><b>The rule for a changed object.</b> Every GET after the first carries {@code If-Match} and every answer's
 * ETag is checked. A read starts on a version when it takes the snapshot, before any request and before any
 * byte is copied, and a version counts the reads started on it. When a GET finds the object changed, the stream
 * moves to the new version silently only if the read that found it is the only read that ever started on the
 * version, it can start over from nothing (a streaming or positioned read returns nothing until it is done; a
 * vectored read may have handed ranges out already, so it cannot), and the caller did not name the ETag.
 * Moving retires the old version so that no read can start on it after. Otherwise the stream fails for good:
 * that read and every later one throw {@link ObjectChangedException}. So a stream never returns bytes, nor an
 * end of file, of two versions. A format policy's own reads do not count: their bytes are not handed to the
 * reader. Either way the old version's cached bytes and metadata are dropped.
 *
 * <p><b>Why one file.</b> Every state and every move between them is here, so that the one rule above (when a stream
 * may move to a new version and when it fails for good) is read and checked in one place; learning the version is
 * {@link FirstFetch}'s, and what a pinned version is, {@link PinnedVersion}'s.
 *
 * <p>Thread-safe; lock-free.
 */
final class ObjectVersion {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectVersion.class);

    private final ReadEngine engine;
    private final MetadataCache metadata;
    private final ObjectAddress address;
    private final AccessIdentity identity;
    private final boolean etagPinnedByCaller;
    private final StatisticsCounter statistics;
    private final AtomicReference<State> state;
    // the stream's number, for the events of reads that wait for the version
    private final long stream;

    /** What one stream knows of its object's version. */
    sealed interface State permits Unknown, Learning, Changed, PinnedVersion {}

    /** Not learned yet: the length and ETag the caller gave, if any (-1 and {@code null} otherwise). */
    record Unknown(long length, String etag) implements State {}

    /** A stream that failed for good: its object changed under a read that could not start over. */
    record Changed(ObjectChangedException failure) implements State {}

    /** One request learning the version; readers that need it wait for {@link #done}. */
    static final class Learning implements State {
        private final Unknown basis;
        private final boolean forReader;
        private final CompletableFuture<FirstFetch.Learned> done = new CompletableFuture<>();
        private final AtomicInteger waiters;
        private volatile FetchScheduler.Ticket ticket;
        // what its request is doing, for the readers that wait
        private volatile GetPhases phases = GetPhases.OFF;
        // completes once a request writing into a reader's buffer can no longer write there; null for other requests
        private volatile CompletableFuture<Void> ended;

        Learning(Unknown basis, boolean forReader) {
            this.basis = basis;
            this.forReader = forReader;
            this.waiters = new AtomicInteger(forReader ? 1 : 0);
        }
    }

    /**
     * @param engine the cache, scheduler and sender the version is learned and checked with, and the metadata cache
     *     where what is learned of the object is remembered for the factory's next streams
     * @param identity who the stream reads as: what it learns and fetches is kept for this identity only
     * @param stream the stream's number, as its events name it
     */
    ObjectVersion(
            long stream,
            ReadEngine engine,
            ObjectAddress address,
            AccessIdentity identity,
            long knownLength,
            String knownEtag,
            boolean etagPinnedByCaller,
            StatisticsCounter statistics) {
        this.stream = stream;
        this.engine = requireNonNull(engine, "engine is null");
        this.metadata = engine.metadata();
        this.address = requireNonNull(address, "address is null");
        this.identity = requireNonNull(identity, "identity is null");
        this.etagPinnedByCaller = etagPinnedByCaller;
        this.statistics = requireNonNull(statistics, "statistics is null");
        State initial;
        if (knownLength == 0) {
            initial = new PinnedVersion(knownEtag, 0, 0); // empty: nothing to fetch, ever
        } else if (knownLength > 0 && knownEtag != null) {
            initial = new PinnedVersion(knownEtag, knownLength, 0);
        } else {
            initial = new Unknown(knownLength, knownEtag);
        }
        this.state = new AtomicReference<>(initial);
    }

    /** The pinned version, or {@code null} before it is known; never waits or sends. */
    PinnedVersion current() {
        return state.get() instanceof PinnedVersion pinned ? pinned : null;
    }

    /** The length if known (pinned, or given by the caller), else -1; never waits or sends. */
    long knownLength() {
        return known().length();
    }

    /** The ETag if pinned or given by the caller, else {@code null}; never waits or sends. */
    String knownEtag() {
        return known().etag();
    }

    /** What the stream knows now, whatever its state: nothing of a stream that failed for good. */
    private Unknown known() {
        State now = state.get();
        if (now instanceof PinnedVersion pinned) {
            return new Unknown(pinned.length(), pinned.etag());
        }
        if (now instanceof Learning learning) {
            return learning.basis;
        }
        return now instanceof Unknown unknown ? unknown : new Unknown(-1, null);
    }

    /**
     * The version a read starts on: the pinned one, or (unless {@code learn} is {@code null}) the one a request
     * learns now, shaped by {@code learn}, or that another's request is learning. A read that counts
     * ({@code counts}: the reader's own reads) is recorded as started on it, once: {@code startedOn} is the
     * version an earlier attempt of the same read started on. Returns {@code null} when the version is not
     * known and {@code learn} is {@code null}.
     *
     * @param learned receives what this read's own learning request wrote into its buffer, if it sent one
     * @throws ObjectChangedException if the stream failed for good
     */
    PinnedVersion pin(
            boolean counts, PinnedVersion startedOn, FirstFetch.Shape learn, Consumer<FirstFetch.Learned> learned)
            throws IOException {
        while (true) {
            State now = state.get();
            if (now instanceof PinnedVersion version) {
                if (!counts || version == startedOn || version.start()) {
                    return version;
                }
            } else if (now instanceof Changed changed) {
                throw thrownAgain(changed.failure());
            } else if (now instanceof Learning learning) {
                WaitSplit waits = WaitSplit.start();
                long from = WaitSplit.beforeWait(waits);
                try {
                    awaitOthers(learning);
                } finally {
                    waitedToLearn(waits, from, learning, learn);
                }
            } else if (learn == null) {
                return null;
            } else {
                Learning mine = new Learning((Unknown) now, true);
                if (state.compareAndSet(now, mine)) {
                    WaitSplit waits = WaitSplit.start();
                    long from = WaitSplit.beforeWait(waits);
                    FirstFetch.Learned outcome;
                    try {
                        outcome = learnWithGet(mine, learn, counts);
                    } finally {
                        waitedToLearn(waits, from, mine, learn);
                    }
                    if (outcome != null && learned != null) {
                        learned.accept(outcome);
                    }
                    // counted at creation when `counts`: the version is this read's
                    PinnedVersion version = current();
                    if (version != null) {
                        return version;
                    }
                }
            }
        }
    }

    /** A read waited for the request learning the version: its event, while a recording wants it. */
    private void waitedToLearn(WaitSplit waits, long from, Learning learning, FirstFetch.Shape shape) {
        WaitSplit.waited(waits, from, learning.phases, false);
        WaitSplit.commit(
                waits,
                stream,
                address.bucket(),
                address.key(),
                "first",
                shape == null || shape.tail() ? -1 : shape.position(),
                shape == null ? 0 : shape.length());
    }

    /**
     * Starts, without waiting, the request a format policy wants as the stream opens, as the request that learns
     * the version; readers that need the version meanwhile wait for it instead of sending their own. Then
     * {@code opened} runs on a fetch thread (after its slot is free), unless it failed: the reader's own first
     * read then meets the failure. Does nothing when the version is known or being learned.
     */
    void startOpenFetch(FirstFetch.Shape shape, Runnable opened) {
        State now = state.get();
        if (!(now instanceof Unknown unknown)) {
            return;
        }
        Learning open = new Learning(unknown, false);
        if (!state.compareAndSet(now, open)) {
            return;
        }
        submitLearning(open, shape, false, opened);
    }

    /** The stream closed: stops an open fetch nobody waits for. */
    void stopLearning() {
        if (state.get() instanceof Learning learning && !learning.forReader && learning.waiters.get() == 0) {
            FetchScheduler.Ticket ticket = learning.ticket;
            if (ticket != null) {
                ticket.cancel();
            }
        }
    }

    /**
     * The length: pinned, given by the caller, or learned with a HEAD on this thread when nothing has told it
     * (a request learning the version is waited for instead). Reveals the version to the caller, so it starts
     * the version like a read.
     */
    long lengthOrHead() throws IOException {
        while (true) {
            State now = state.get();
            if (now instanceof PinnedVersion pinned) {
                if (pinned.start()) {
                    return pinned.length();
                }
            } else if (now instanceof Changed changed) {
                throw thrownAgain(changed.failure());
            } else if (now instanceof Learning learning) {
                awaitOthers(learning);
            } else {
                Unknown unknown = (Unknown) now;
                if (unknown.length() >= 0) {
                    return unknown.length();
                }
                learnWithHead(unknown);
            }
        }
    }

    /**
     * Learns the version with a HEAD on this (a reader's) thread, for {@link #lengthOrHead}. The version counts this read as started.
     */
    private void learnWithHead(Unknown unknown) throws IOException {
        Learning mine = new Learning(unknown, true);
        if (!state.compareAndSet(unknown, mine)) {
            return;
        }
        ObjectMetadata metadata;
        try {
            metadata = engine.scheduler()
                    .call(FetchPriority.DEMAND, abort -> engine.sender().head(address, abort, statistics));
        } catch (IOException | RuntimeException | Error e) {
            state.compareAndSet(mine, unknown);
            mine.done.completeExceptionally(e);
            throw e;
        }
        publish(mine, metadata, true);
        mine.done.complete(new FirstFetch.Learned(metadata, null));
    }

    private FirstFetch.Learned learnWithGet(Learning mine, FirstFetch.Shape shape, boolean counts) throws IOException {
        if (shape.hasBuffer()) {
            mine.ended = new CompletableFuture<>();
        }
        submitLearning(mine, shape, counts, null);
        try {
            return engine.scheduler().await(mine.done, "the first request to " + address);
        } catch (InterruptedIOException e) {
            leave(mine);
            throw e;
        } catch (ExecutionException e) {
            throw asIOException(e.getCause());
        }
    }

    private void submitLearning(Learning learning, FirstFetch.Shape shape, boolean counts, Runnable opened) {
        FirstFetch first = new FirstFetch(engine, address, identity, statistics);
        learning.phases = first.phases();
        // resumable: a first request answered 503 waits out its backoff off the fetch slot, and is planned and sent
        // again after it (its attempts and the first answer's ETag carry over in the abort)
        learning.ticket = engine.scheduler()
                .submitResumable(
                        FetchPriority.DEMAND,
                        abort -> {
                            FirstFetch.Learned outcome;
                            try {
                                outcome = first.run(shape, learning.basis.length(), learning.basis.etag(), abort);
                                publish(learning, outcome.metadata(), counts);
                            } catch (BackOff e) {
                                throw e;
                            } catch (IOException | RuntimeException | Error e) {
                                failLearning(learning, e);
                                if (e instanceof Error error) {
                                    throw error;
                                }
                                return;
                            }
                            endLearning(learning);
                            learning.done.complete(outcome);
                            if (opened != null) {
                                engine.scheduler().afterSlot(opened);
                            }
                        },
                        failure -> failLearning(learning, failure));
    }

    private void failLearning(Learning learning, Throwable failure) {
        if (failure instanceof HttpStatusException changed
                && changed.isPreconditionFailed()
                && learning.basis.etag() != null) {
            // the caller named this ETag and the object no longer has it
            ObjectChangedException fail =
                    new ObjectChangedException(address.bucket(), address.key(), learning.basis.etag(), null, changed);
            state.compareAndSet(learning, new Changed(fail));
            endLearning(learning);
            learning.done.completeExceptionally(fail);
            return;
        }
        if (!learning.forReader) {
            LOG.debug("Open fetch of {} failed; the first read sends its own request", address, failure);
        }
        state.compareAndSet(learning, learning.basis);
        endLearning(learning);
        learning.done.completeExceptionally(failure);
    }

    private static void endLearning(Learning learning) {
        CompletableFuture<Void> ended = learning.ended;
        if (ended != null) {
            ended.complete(null);
        }
    }

    /** Publishes what a request learned ({@code null}: an empty object) as the pinned version. */
    private void publish(Learning learning, ObjectMetadata metadata, boolean counts) throws IOException {
        String expected = learning.basis.etag();
        if (metadata != null && expected != null && !expected.equals(metadata.etag())) {
            ObjectChangedException fail =
                    new ObjectChangedException(address.bucket(), address.key(), expected, metadata.etag(), null);
            state.compareAndSet(learning, new Changed(fail));
            throw fail;
        }
        PinnedVersion version = metadata == null
                ? new PinnedVersion(expected, 0, counts ? 1 : 0)
                : new PinnedVersion(metadata.etag(), metadata.length(), counts ? 1 : 0);
        if (metadata != null) {
            this.metadata.put(address.bucket(), address.key(), address.versionId(), identity, metadata);
        }
        state.compareAndSet(learning, version);
    }

    /** Waits for another's learning request; an interrupted waiter leaves it (see {@link #leave}). */
    private void awaitOthers(Learning learning) throws IOException {
        learning.waiters.incrementAndGet();
        try {
            engine.scheduler().await(learning.done, "the request learning the version of " + address);
        } catch (InterruptedIOException e) {
            leave(learning);
            throw e;
        } catch (ExecutionException e) {
            // its failure is its reader's to report; this read learns (or fails) on its own next
            return;
        }
        learning.waiters.decrementAndGet();
    }

    /**
     * An interrupted reader stops waiting for a learning request: the last reader out cancels it, and a request
     * writing into the leaving reader's buffer is cancelled and waited for (bounded, as an abort cuts it at
     * once), so nothing writes into that buffer after the read returned.
     */
    private void leave(Learning learning) {
        boolean last = learning.waiters.decrementAndGet() == 0 && learning.forReader;
        CompletableFuture<Void> ended = learning.ended;
        if (last || ended != null) {
            FetchScheduler.Ticket ticket = learning.ticket;
            if (ticket != null) {
                ticket.cancel();
            }
        }
        if (ended != null) {
            ObjectRead.awaitUninterruptibly(ended);
        }
    }

    /**
     * A GET of {@code version} found the object changed. Returns when the stream moved to the new version (the
     * read starts over); throws {@link ObjectChangedException} when it cannot move (see the class note).
     *
     * @param startedBy how many starts on {@code version} were the finding read's own (0 for a format policy's)
     * @param canStartOver whether the finding read has handed nothing to its caller yet
     * @param mayAsk whether this thread may send a HEAD to tell the new ETag (not a fetch thread)
     */
    void onChanged(
            PinnedVersion version, int startedBy, boolean canStartOver, boolean mayAsk, HttpStatusException failure)
            throws IOException {
        while (true) {
            State now = state.get();
            if (now instanceof Changed changed) {
                throw thrownAgain(changed.failure());
            }
            if (now != version) {
                return; // another read already moved the stream: start over on what it learned
            }
            if (!etagPinnedByCaller && canStartOver && version.retireIfStartedBy(startedBy)) {
                forget(version);
                state.compareAndSet(now, new Unknown(-1, null));
                return;
            }
            String current = null;
            if (mayAsk) {
                try {
                    current = engine.scheduler()
                            .call(FetchPriority.DEMAND, abort -> engine.sender().head(address, abort, statistics))
                            .etag();
                } catch (IOException e) {
                    failure.addSuppressed(e);
                }
            }
            ObjectChangedException fail =
                    new ObjectChangedException(address.bucket(), address.key(), version.etag(), current, failure);
            if (state.compareAndSet(now, new Changed(fail))) {
                forget(version);
                throw fail;
            }
        }
    }

    /** Drops what the factory holds of {@code version}: its bytes, and its length and ETag. */
    private void forget(PinnedVersion version) {
        if (version.etag() != null) {
            engine.cache().invalidate(objectId(version));
        }
        this.metadata.invalidate(address.bucket(), address.key(), address.versionId(), identity);
    }

    ObjectId objectId(PinnedVersion version) {
        return new ObjectId(address.bucket(), address.key(), version.etag(), identity);
    }

    private static IOException asIOException(Throwable failure) {
        if (failure instanceof IOException io) {
            return io;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new IOException(failure.getMessage(), failure);
    }

    /** The same failure, thrown anew: one instance is not thrown on several threads. */
    private static ObjectChangedException thrownAgain(ObjectChangedException failure) {
        return new ObjectChangedException(
                failure.bucket(), failure.key(), failure.expectedEtag(), failure.currentEtag(), failure);
    }
}
