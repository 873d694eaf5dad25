package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.GetPhases;
import io.rangefetch.internal.events.GetPhases.Phase;
import io.rangefetch.internal.fetch.BackOff;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchPriority;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One GET of a range of a pinned object version, and where its bytes go: into claimed cache blocks, and straight
 * into callers' buffers where the cache had no room. Bytes between targets are read and dropped. Every GET of a
 * block load, a positioned, streaming or vectored read and a prefetch is one of these; the GET itself goes
 * through {@link RetryingSender}.
 *
 * <p><b>Ends once.</b> Exactly one of {@link #run} and {@link #fail} takes effect: the scheduler promises one of
 * them, and a fetch that was never submitted (its read failed while planning) is failed by its {@link ObjectRead}.
 * A run that waits out a retry's backoff ({@link BackOff}) has not ended: the scheduler runs it again after the
 * wait (or abandons it, which fails it), and its receiver keeps the bytes that arrived. Either way every block it
 * fills is completed or failed (which gives its bytes back to the budget and wakes its readers), and {@link
 * #ended()} completes after.
 *
 * <p><b>Stops when nobody wants it.</b> When every block it fills has been abandoned (their readers all left,
 * or the stream that prefetched them closed) and it writes into no caller's buffer, its GET is cancelled.
 *
 * <p>Targets are added on the planning thread before {@link #submit}; {@link #run} runs on a scheduler thread.
 */
final class BlockGet {
    private final ReadEngine engine;
    private final ObjectAddress address;
    private final String pinned;
    private final StatisticsCounter statistics;
    private ByteRange bytes;
    private final boolean prefetch;
    private final FetchCause cause;
    // what the GET is doing, for the reads that wait for it to say on what (kept only while a recording wants it)
    private final GetPhases phases = GetPhases.start();
    private final List<Target> targets = new ArrayList<>();
    private final List<Block> filled = new ArrayList<>();
    private final CompletableFuture<Void> directWrites = new CompletableFuture<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final AtomicBoolean finished = new AtomicBoolean();
    private final Set<Block> abandoned = ConcurrentHashMap.newKeySet();
    private volatile FetchScheduler.Ticket ticket;
    // Set on the planning thread before submit, read by the fetch after: the scheduler's hand-off orders them.
    private volatile boolean cancelWanted;
    private boolean submitted;
    private int directTargets;
    // Made by the first run, kept by the runs after a backoff (the scheduler orders the runs).
    private RangeGetRequest request;
    private byte[][] arrays;
    private Receiver receiver;
    // Written by the fetch thread, read by a reader giving up: how the GET has fared so far.
    private volatile int attemptsFailed;
    private volatile String lastFailure;

    BlockGet(
            ReadEngine engine,
            ObjectAddress address,
            String pinned,
            StatisticsCounter statistics,
            ByteRange bytes,
            boolean prefetch,
            FetchCause cause) {
        this.engine = requireNonNull(engine, "engine is null");
        this.address = requireNonNull(address, "address is null");
        this.pinned = requireNonNull(pinned, "pinned is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.bytes = requireNonNull(bytes, "bytes is null");
        this.prefetch = prefetch;
        this.cause = requireNonNull(cause, "cause is null");
    }

    ByteRange bytes() {
        return bytes;
    }

    boolean isPrefetch() {
        return prefetch;
    }

    /** What the GET is doing, for a read that waits for the bytes it writes into a buffer. */
    GetPhases phases() {
        return phases;
    }

    /** The blocks this GET fills. */
    List<Block> filled() {
        return filled;
    }

    /** Completes once the bytes written straight into callers' buffers are all there. */
    CompletableFuture<Void> directWrites() {
        return directWrites;
    }

    /** Completes once the GET has ended, delivered or failed: nothing writes into a caller's buffer after. */
    CompletableFuture<Void> ended() {
        return ended;
    }

    void fill(Block block) {
        block.fetchedBy(phases, cause);
        filled.add(block);
        targets.add(new Target(block.range(), block, null, 0));
    }

    /** Writes {@code segment} of the object straight into {@code buffer}, from absolute index {@code index} on. */
    void direct(ByteRange segment, ByteBuffer buffer, int index) {
        directTargets++;
        targets.add(new Target(segment, null, buffer, index));
    }

    /** How the GET has fared so far, for a reader that gave up waiting for it. */
    String progress() {
        if (!submitted) {
            return toString() + " was never sent";
        }
        int failed = attemptsFailed;
        return failed == 0
                ? toString() + " had not answered (queued, waiting for a place, or receiving)"
                : toString() + " failed " + failed + (failed == 1 ? " attempt" : " attempts") + " so far, the last: "
                        + lastFailure;
    }

    /** Whether {@link #submit} was called: from then on the scheduler ends it. */
    boolean wasSubmitted() {
        return submitted;
    }

    boolean hasTargets() {
        return !targets.isEmpty();
    }

    /**
     * Queues the GET. Each block it fills stops it once abandoned by everyone (see the class note); a prefetch
     * block a reader joins promotes it to a demand fetch.
     */
    FetchScheduler.Ticket submit(FetchPriority priority) {
        if (targets.isEmpty()) {
            throw new IllegalStateException(this + " has nothing to fetch");
        }
        // only the span of the bytes it was given somewhere to go: a claim that found no room left nothing there
        targets.sort(Comparator.comparingLong(target -> target.bytes().start()));
        bytes = new ByteRange(
                targets.get(0).bytes().start(),
                targets.stream().mapToLong(target -> target.bytes().end()).max().orElseThrow());
        this.submitted = true;
        FetchScheduler.Ticket submitted = engine.scheduler().submitResumable(priority, this::run, this::fail);
        ticket = submitted;
        for (Block block : filled) {
            block.whenAbandoned(() -> abandoned(block));
            if (priority == FetchPriority.PREFETCH) {
                block.whenJoined(submitted::promote);
            }
        }
        if (cancelWanted) {
            submitted.cancel();
        }
        return submitted;
    }

    /** Stops the GET: it then fails its blocks, which readers see as cancelled. */
    void cancel() {
        FetchScheduler.Ticket submitted = ticket;
        cancelWanted = true;
        if (submitted != null) {
            submitted.cancel();
        }
    }

    private void abandoned(Block block) {
        if (abandoned.add(block) && abandoned.size() == filled.size() && directTargets == 0) {
            cancel();
        }
    }

    /** Runs on a scheduler thread; again after each backoff, until it ends. */
    void run(FetchAbort abort) {
        if (finished.get()) {
            return;
        }
        if (receiver == null) {
            request = RangeGetRequest.of(address, bytes, pinned);
            arrays = new byte[targets.size()][];
            receiver = new Receiver(request, arrays);
        }
        try {
            engine.sender().fetch(request, abort, statistics, prefetch, cause, receiver);
        } catch (BackOff e) {
            throw e; // run again after the wait; the receiver keeps what arrived
        } catch (Throwable e) {
            fail(e);
            if (e instanceof Error error) {
                throw error;
            }
            return;
        }
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        phases.enter(Phase.ENDED);
        for (int i = 0; i < targets.size(); i++) {
            if (targets.get(i).block() != null) {
                engine.cache().complete(targets.get(i).block(), arrays[i]);
            }
        }
        directWrites.complete(null);
        ended.complete(null);
    }

    /**
     * Stores the GET's bytes into its targets in order, skipping the bytes between them; a resumed answer
     * continues where the last one broke, into the same arrays.
     */
    private final class Receiver implements RetryingSender.Receiver {
        private final RangeGetRequest request;
        private final byte[][] arrays;
        private long next;

        Receiver(RangeGetRequest request, byte[][] arrays) {
            this.request = request;
            this.arrays = arrays;
            this.next = bytes.start();
        }

        @Override
        public long next() {
            return next;
        }

        /**
         * Abandons every block nobody waits for; {@code true} when that was all of them (and nothing goes into a
         * caller's buffer). A reader joining later finds a block abandoned and fetches its bytes anew; one that
         * joined first keeps the GET going.
         */
        @Override
        public boolean dropIfUnwanted() {
            boolean unwanted = directTargets == 0;
            for (Block block : filled) {
                unwanted &= block.tryAbandon();
            }
            return unwanted;
        }

        @Override
        public GetPhases phases() {
            return phases;
        }

        @Override
        public void attemptFailed(int attempt, IOException failure) {
            lastFailure = String.valueOf(failure.getMessage());
            attemptsFailed = attempt;
        }

        @Override
        public long end() {
            return bytes.end();
        }

        @Override
        public void receive(ObjectContent content) throws IOException {
            Bodies.checkRange(request, content, new ByteRange(next, bytes.end()));
            Bodies.Cursor cursor = new Bodies.Cursor(request, content);
            try {
                for (int i = 0; i < targets.size(); i++) {
                    Target target = targets.get(i);
                    if (target.bytes().end() <= cursor.position()) {
                        continue;
                    }
                    cursor.skipTo(target.bytes().start());
                    int done = (int) (cursor.position() - target.bytes().start());
                    int length = (int) (target.bytes().end() - cursor.position());
                    if (target.block() != null) {
                        if (arrays[i] == null) {
                            arrays[i] = engine.cache().bufferFor(target.block());
                        }
                        cursor.into(arrays[i], done, length);
                    } else {
                        cursor.into(target.buffer(), target.index() + done, length);
                    }
                }
            } finally {
                next = cursor.position();
            }
        }
    }

    /** The GET failed, or will never run: its blocks leave the cache, and its readers learn why. */
    void fail(Throwable cause) {
        if (finished.compareAndSet(false, true)) {
            failAll(cause);
        }
    }

    private void failAll(Throwable cause) {
        phases.enter(Phase.ENDED);
        try {
            filled.forEach(block -> engine.cache().fail(block, cause));
        } finally {
            directWrites.completeExceptionally(cause);
            ended.complete(null);
        }
    }

    @Override
    public String toString() {
        return "GET " + address + " " + bytes + " (" + cause.label() + ")";
    }

    /** Where bytes of the GET go: a block's array, or a caller's buffer from an absolute index on. */
    private record Target(ByteRange bytes, Block block, ByteBuffer buffer, int index) {}
}
