package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.WaitSplit;
import io.rangefetch.internal.fetch.FetchCancelledException;
import io.rangefetch.internal.fetch.FetchPriority;
import io.rangefetch.internal.plan.FetchPlan;
import io.rangefetch.internal.plan.FetchPlan.PlannedBlock;
import io.rangefetch.internal.plan.FetchPlan.PlannedGet;
import io.rangefetch.internal.plan.VectoredPlanner;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One read of one pinned version, and its hold on the bytes it needs: the one template every read (streaming,
 * positioned, vectored) and every prefetch runs, {@link #acquire}, with the steps where reads differ as its own
 * methods ({@link #plan}, {@link #fromBlock}, {@link #direct}), which {@link PlannedRead} (reads into a caller's
 * buffer) and {@link VectoredRead} (vectored reads and prefetches) implement. Then each waits and copies in its own
 * way, and lets go here.
 *
 * <ol>
 *   <li><b>Look up</b>, under the object's stripe lock ({@link BlockCache#lockFor}), so that no other reader claims
 *       the same bytes meanwhile: the blocks of the read's window in the index; each one a wanted range copies
 *       from is {@linkplain #take taken} (joined if in flight, so nobody abandons it under this read, and retained,
 *       so its array is not recycled while the read copies), looking again whenever one turns out to be going
 *       away (it is then out of the index).</li>
 *   <li><b>Plan</b>: the read's {@link #plan}, made by a pure planner of {@code internal.plan} from the blocks it
 *       was shown.</li>
 *   <li><b>Claim</b> every planned block, in plan order, with the GET that fills it (its bytes reserved against the
 *       budget), and give each of the block's readers a reference ({@link #fromBlock}); when the budget has no
 *       room, the bytes a reader wanted are written straight into its buffer by that GET ({@link #direct}), in
 *       parts no larger than the maximum request.</li>
 *   <li><b>Submit</b>, unlocked, every GET: demand first, then prefetches ({@link #submit}).</li>
 *   <li><b>Wait and copy</b>, the variant's own, with {@link #await}, interruptibly, until the read's
 *       {@code read.deadline} (measured on the factory's ticker from when the read was made; each wait ends at it
 *       through {@link io.rangefetch.internal.fetch.FetchScheduler#awaitUntil}).</li>
 *   <li><b>Let go</b>: {@link #close}, always, in a {@code finally} (try-with-resources). A GET created and not
 *       submitted is failed, which gives its blocks' bytes back and wakes whoever joined them. A read that ends
 *       early (interrupted, failed) leaves the blocks it waited for, cancelling a GET nobody else wants, and
 *       cancels its GETs into the caller's buffer and waits for them to stop writing there. Every reference it
 *       took is released. A vectored read, whose ranges complete later on fetch threads, instead
 *       {@linkplain #handOver hands its references over} to its ranges.</li>
 * </ol>
 *
 * <p><b>Invariants.</b> Nothing the read was shown as cached is claimed again (the planners promise it), so blocks
 * of one object never overlap; every block claimed for a reader holds one reference per reader until the read lets
 * go or hands them over; every GET made is submitted, or failed by {@link #close}. <b>Locks.</b> The stripe lock is
 * held from the look-up to the last claim, never while a GET is sent or a read waits; under it the cache takes its
 * eviction lock, never the other way round; the variant's steps run under it and take no lock of their own (the
 * stride pattern and the adaptive minimum are told outside it).
 *
 * <p>Not thread-safe: one read's thread; a stream runs many reads at once, each its own object.
 */
abstract class ObjectRead implements AutoCloseable {
    private static final long STOP_WAIT_SECONDS = 30;

    private final ReadEngine engine;
    private final BlockCache cache;
    private final Duration readDeadline;
    private final ObjectAddress address;
    // the version this read reads; its variants plan against its length
    final PinnedVersion pinned;
    private final String etag;
    private final ObjectId id;
    private final StatisticsCounter statistics;
    private final PrefetchTracker prefetches;
    private final List<Block> references = new ArrayList<>();
    private final Set<Block> taken = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<Block> waitedFor = new ArrayList<>();
    private final List<BlockGet> fetches = new ArrayList<>();
    private final List<BlockGet> direct = new ArrayList<>();
    // what the read waited on, while a recording wants read waits (else null)
    private final WaitSplit waits = WaitSplit.start();
    private final long deadline;
    private boolean completed;

    /** A read of {@code pinned} for {@code stream}; its deadline runs from now. */
    ObjectRead(ObjectReader stream, PinnedVersion pinned) {
        this(
                stream.engine(),
                stream.address(),
                pinned,
                stream.objectId(pinned),
                stream.statistics(),
                stream.prefetches());
    }

    /**
     * @param id the cache's key of {@code version} as this read's identity reads it
     * @param prefetches the stream's prefetches, stopped when it closes
     */
    ObjectRead(
            ReadEngine engine,
            ObjectAddress address,
            PinnedVersion version,
            ObjectId id,
            StatisticsCounter statistics,
            PrefetchTracker prefetches) {
        this.engine = requireNonNull(engine, "engine is null");
        this.cache = engine.cache();
        this.readDeadline = engine.readDeadline();
        this.deadline = engine.time().deadlineAfter(readDeadline);
        this.address = requireNonNull(address, "address is null");
        this.pinned = requireNonNull(version, "version is null");
        this.etag = version.etag(); // null for an empty object, of which nothing is ever fetched
        this.id = requireNonNull(id, "id is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.prefetches = requireNonNull(prefetches, "prefetches is null");
    }

    /**
     * The template (see the class note): looks up, plans, claims and submits this read.
     *
     * @param window where the cache is looked up: every block the plan must not fetch again lies in it
     * @param wanted the ranges the read copies out, sorted and disjoint; a prefetch gives none
     */
    final void acquire(ByteRange window, List<ByteRange> wanted) {
        ReentrantLock lock = cache.lockFor(id);
        lock.lock();
        try {
            List<Block> known = takeWanted(window, wanted);
            for (Block block : known) {
                List<Integer> readers = VectoredPlanner.overlapping(wanted, block.range());
                for (int i = 0; i < readers.size(); i++) {
                    if (i > 0) {
                        retainAgain(block); // taking it held the first reader's reference
                    }
                    fromBlock(readers.get(i), block, true);
                }
            }
            claimPlanned(plan(known), wanted);
        } finally {
            lock.unlock();
        }
        submit();
    }

    /**
     * The read's plan, under the object's lock, given every block of the window left in the index (those a wanted
     * range copies from already taken and handed to {@link #fromBlock}).
     */
    abstract FetchPlan plan(List<Block> known);

    /** Why a GET of the plan is sent: {@code prefetch} when nobody waits for it. */
    abstract FetchCause causeOf(boolean prefetch);

    /** Wanted range {@code reader} copies from {@code block}, of which one reference is held for it. */
    abstract void fromBlock(int reader, Block block, boolean cached);

    /** No room in the budget: {@code fetch} is to write {@code bytes} of wanted range {@code reader} into place. */
    abstract void direct(int reader, BlockGet fetch, ByteRange bytes);

    /** A prefetch block of the plan was claimed. */
    void prefetchClaimed(ByteRange bytes) {}

    /** The blocks of {@code window} in the index, every one a wanted range overlaps taken. */
    private List<Block> takeWanted(ByteRange window, List<ByteRange> wanted) {
        while (true) {
            List<Block> known = blocksOverlapping(window);
            boolean lookAgain = false;
            for (Block block : known) {
                if (!VectoredPlanner.overlapping(wanted, block.range()).isEmpty() && !take(block)) {
                    lookAgain = true;
                }
            }
            if (!lookAgain) {
                return known;
            }
        }
    }

    private void claimPlanned(FetchPlan plan, List<ByteRange> wanted) {
        for (PlannedGet get : plan.gets()) {
            BlockGet fetch = newFetch(get.range(), get.prefetch(), causeOf(get.prefetch()));
            for (PlannedBlock planned : get.blocks()) {
                Block block = claimFor(fetch, planned.bytes(), get.prefetch(), false);
                if (block == null && get.prefetch() && plan.prefetchesInARow()) {
                    return; // the ones after would leave a hole behind this one
                }
                if (block != null && get.prefetch()) {
                    prefetchClaimed(planned.bytes());
                }
                List<Integer> readers = planned.readers();
                for (int i = 0; i < readers.size(); i++) {
                    int reader = readers.get(i);
                    if (block != null) {
                        retainClaimed(block, i == 0);
                        fromBlock(reader, block, false);
                        continue;
                    }
                    ByteRange asked = wanted.get(reader);
                    long from = Math.max(planned.bytes().start(), asked.start());
                    long to = Math.min(planned.bytes().end(), asked.end());
                    if (from < to) {
                        direct(reader, fetch, new ByteRange(from, to));
                    }
                }
            }
        }
    }

    ObjectId id() {
        return id;
    }

    /** The blocks of this version in the index overlapping {@code window}, by start. The caller holds the lock. */
    List<Block> blocksOverlapping(ByteRange window) {
        return cache.blocksOverlapping(id, window.start(), window.end());
    }

    /**
     * Takes a block found in the cache for this read: joins it if it is in flight and retains it. {@code false}
     * when it is gone, failed or being abandoned (it is then out of the index: look again). The caller holds the
     * object's lock. Taking a block twice takes it once.
     */
    boolean take(Block block) {
        if (taken.contains(block)) {
            return true;
        }
        boolean inFlight = !block.isDone();
        if (!inFlight && block.loaded().isCompletedExceptionally()) {
            // its GET failed (a dropped prefetch, a cancelled or failed fetch), which took it out of the index
            // first; found before that, it is no cached block: its bytes are fetched anew
            return false;
        }
        if (inFlight && !block.join()) {
            cache.forget(block);
            return false;
        }
        if (!cache.retain(block)) {
            if (inFlight) {
                block.leave();
            }
            return false;
        }
        references.add(block);
        taken.add(block);
        if (inFlight) {
            waitedFor.add(block);
        }
        return true;
    }

    /** Another reference to a block this read took or claimed: one range more copies from it. */
    void retainAgain(Block block) {
        if (!cache.retain(block)) {
            throw new IllegalStateException("A block held by this read cannot be gone: " + block);
        }
        references.add(block);
    }

    /**
     * Claims {@code range} and creates the GET that fills it; {@code null} when the budget has no room. A demand
     * block is retained and waited for by this read; a prefetch block is for nobody yet. The caller holds the
     * object's lock and has checked that nothing cached overlaps {@code range}.
     */
    Block claim(ByteRange range, boolean prefetch) {
        Block block = cache.claim(id, range, prefetch, statistics);
        if (block == null) {
            return null;
        }
        BlockGet fetch = newFetch(range, prefetch, causeOf(prefetch));
        fetch.fill(block);
        if (!prefetch) {
            retainClaimed(block);
        }
        return block;
    }

    /**
     * A GET of {@code bytes} with no target yet: targets are added by the caller before {@link #submit}. {@code
     * prefetch} when nobody waits for it (it is queued behind demand fetches); {@code cause} says why it is sent.
     */
    BlockGet newFetch(ByteRange bytes, boolean prefetch, FetchCause cause) {
        BlockGet fetch = new BlockGet(
                engine,
                address,
                requireNonNull(etag, "a version with bytes has an ETag"),
                statistics,
                bytes,
                prefetch,
                cause);
        fetches.add(fetch);
        return fetch;
    }

    /** Claims a block for an existing GET of this acquisition; {@code null} when the budget has no room. */
    Block claimFor(BlockGet fetch, ByteRange range, boolean prefetch, boolean retain) {
        Block block = cache.claim(id, range, prefetch, statistics);
        if (block != null) {
            fetch.fill(block);
            if (retain) {
                retainClaimed(block);
            }
        }
        return block;
    }

    private void retainClaimed(Block block) {
        retainClaimed(block, true);
    }

    /**
     * A reference to a block this read claimed, for one of its readers; {@code waitFor} for the first, so that a
     * read ending early leaves it.
     */
    void retainClaimed(Block block, boolean waitFor) {
        if (!cache.retain(block)) {
            throw new IllegalStateException("A claimed block cannot be gone before its GET is sent: " + block);
        }
        references.add(block);
        if (waitFor) {
            waitedFor.add(block);
        }
    }

    /**
     * Bytes {@code fetch} writes straight into {@code buffer} from absolute index {@code index} on: the budget had no
     * room for their block. The read waits for them, and its close stops the GET before the buffer is the caller's
     * again. Never larger than the maximum request: the planner cut the GET.
     */
    void directInto(BlockGet fetch, ByteRange range, ByteBuffer buffer, int index) {
        fetch.direct(range, buffer, index);
        if (!direct.contains(fetch)) {
            direct.add(fetch);
        }
    }

    /**
     * Submits every GET: demand ones first, then prefetches, which the stream tracks so that closing it stops
     * those nobody waits for.
     */
    void submit() {
        fetches.removeIf(fetch -> !fetch.hasTargets()); // its claims found no room and nobody asked for its bytes
        for (BlockGet fetch : fetches) {
            if (!fetch.isPrefetch()) {
                fetch.submit(FetchPriority.DEMAND);
            }
        }
        for (BlockGet fetch : fetches) {
            if (fetch.isPrefetch()) {
                fetch.submit(FetchPriority.PREFETCH);
                prefetches.track(fetch.filled());
            }
        }
    }

    /**
     * The bytes of {@code block}, once loaded; {@code own} when this read claimed it. A shared block that
     * failed is {@link BlockLostException}: another's fetch, to plan the read again.
     */
    byte[] await(Block block, boolean own) throws IOException {
        boolean waiting = !block.isDone();
        long from = waiting ? WaitSplit.beforeWait(waits) : 0;
        try {
            return engine.scheduler().awaitUntil(block.loaded(), block.toString(), deadline);
        } catch (ExecutionException e) {
            throw failure(block.toString(), e.getCause(), own);
        } catch (TimeoutException e) {
            throw pastDeadline(
                    block.toString(),
                    fetches.stream()
                            .filter(fetch -> fetch.filled().contains(block))
                            .findFirst()
                            .orElse(null));
        } finally {
            if (waiting) {
                WaitSplit.waited(waits, from, block.phases(), block.owner() != statistics);
            }
        }
    }

    /** Waits until {@code fetch} has written its bytes into the reader's buffer. */
    void await(BlockGet fetch) throws IOException {
        boolean waiting = !fetch.directWrites().isDone();
        long from = waiting ? WaitSplit.beforeWait(waits) : 0;
        try {
            engine.scheduler().awaitUntil(fetch.directWrites(), fetch.toString(), deadline);
        } catch (ExecutionException e) {
            throw failure(fetch.toString(), e.getCause(), true);
        } catch (TimeoutException e) {
            throw pastDeadline(fetch.toString(), fetch);
        } finally {
            if (waiting) {
                WaitSplit.waited(waits, from, fetch.phases(), false);
            }
        }
    }

    /** What the read waited on so far ({@code null} while no recording wants read waits). */
    WaitSplit waits() {
        return waits;
    }

    /**
     * The read waited past {@code read.deadline}: says for what, and how the GET it waited for has fared
     * ({@code fetch}, or {@code null} when another read's GET loads the bytes).
     */
    private IOException pastDeadline(String what, BlockGet fetch) {
        String how = fetch == null ? "a GET another read sent had not delivered them" : fetch.progress();
        return new IOException("Read of " + address + " waited longer than read.deadline (" + readDeadline + ") for "
                + what + ": " + how);
    }

    private static IOException failure(String what, Throwable cause, boolean own) {
        if (cause instanceof HttpStatusException changed && changed.isPreconditionFailed()) {
            return new HttpStatusException(cause.getMessage(), changed.statusCode(), cause);
        }
        if (cause instanceof FileNotFoundException) {
            FileNotFoundException notFound = new FileNotFoundException(cause.getMessage());
            notFound.initCause(cause);
            return notFound;
        }
        if (!own) {
            return new BlockLostException("Shared fetch of " + what + " failed", cause);
        }
        if (cause instanceof FetchCancelledException cancelled) {
            return new FetchCancelledException(what + ": " + cancelled.getMessage(), cancelled);
        }
        return new IOException("Read of " + what + " failed: " + cause.getMessage(), cause);
    }

    /** The read got all it waited for: nothing to leave or stop when it closes. */
    void succeeded() {
        completed = true;
    }

    /** Keeps one reference of {@code block} past {@link #close} (the caller now releases it). */
    void keep(Block block) {
        if (!references.remove(block)) {
            throw new IllegalStateException("This read holds no reference to " + block);
        }
    }

    /**
     * Hands the references this read took to the caller (a vectored read's ranges release those they hold as they
     * complete); {@link #close} then releases none.
     */
    void handOver() {
        references.clear();
        completed = true;
    }

    @Override
    public void close() {
        try {
            FetchCancelledException never =
                    new FetchCancelledException("The read of " + address + " ended before its fetches were sent", null);
            fetches.stream().filter(fetch -> !fetch.wasSubmitted()).forEach(fetch -> fetch.fail(never));
            if (!completed) {
                waitedFor.stream().filter(block -> !block.isDone()).forEach(Block::leave);
            }
            // a GET must not write into a caller's buffer once the read returned, whatever it returned
            for (BlockGet fetch : direct) {
                if (!fetch.ended().isDone()) {
                    fetch.cancel();
                    awaitUninterruptibly(fetch.ended());
                }
            }
        } finally {
            references.forEach(cache::release);
            references.clear();
        }
    }

    /**
     * Waits for a stopped GET to end, through interrupts (an abort cuts its connection, so it ends at once; the
     * wait is bounded all the same), keeping the thread's interrupt flag. The bound is real time, not the factory's
     * ticker: it is a guard against a stuck client, no timeout of the library's, and a test's ticker that stands
     * still must not turn it into a hang.
     */
    static void awaitUninterruptibly(CompletableFuture<?> ended) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_WAIT_SECONDS);
        try {
            while (!ended.isDone()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    ended.get(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    return;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
