package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.plan.FetchPlan;
import io.rangefetch.internal.plan.FetchPlan.PlannedBlock;
import io.rangefetch.internal.plan.FetchPlan.PlannedGet;
import io.rangefetch.internal.plan.VectoredPlanner;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.internal.time.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The one way a stream's reads get hold of their bytes: streaming and positioned reads ({@link ObjectReader}),
 * vectored reads and every prefetch ({@link VectoredRead}) all go through {@link #acquire}, which
 *
 * <ol>
 *   <li>locks the object's stripe ({@link io.rangefetch.internal.cache.BlockCache#lockFor}), so that no other reader
 *       claims the same bytes meanwhile;</li>
 *   <li>looks up the blocks of the read's window and {@linkplain Acquisition#take takes} those a wanted range
 *       copies from, looking again whenever one turns out to be going away (it is then out of the index);</li>
 *   <li>asks the read for its plan ({@link Planning#plan}), made by a pure planner of {@code internal.plan} from
 *       the blocks it was shown;</li>
 *   <li>claims every planned block, in plan order, with the GET that fills it, and gives each of the block's
 *       readers a reference (or, when the budget has no room, the bytes it wanted written straight into its
 *       buffer by that GET);</li>
 *   <li>unlocks, and submits every GET (demand first, then prefetches).</li>
 * </ol>
 *
 * <p><b>Invariants.</b> Nothing the read was shown as cached is claimed again (the planners promise it), so blocks
 * of one object never overlap; every block claimed for a reader holds one reference per reader until the read's
 * {@link Acquisition} lets go or hands them over; every GET made is submitted, or failed by the acquisition's
 * close. <b>Locks.</b> The stripe lock is held from the look-up to the last claim, never while a GET is sent or a
 * read waits; under it the cache takes its eviction lock, never the other way round; the read's callbacks run under
 * it and take no lock of their own (the stride pattern and the adaptive minimum are told outside it).
 *
 * <p>One per stream; thread-safe (each call works on its own acquisition).
 */
final class ReadOrchestrator {
    private final Fetching fetching;
    private final TimeSource time;
    private final Duration readDeadline;
    private final ObjectAddress address;
    private final Function<PinnedVersion, ObjectId> idOf;
    private final StatisticsCounter statistics;
    private final PrefetchTracker prefetches;

    /**
     * @param readDeadline how long one read call may wait in all, on {@code time}'s ticker; zero for no limit
     * @param idOf the cache's key of a pinned version of the object
     * @param prefetches the stream's prefetches, stopped when it closes
     */
    ReadOrchestrator(
            Fetching fetching,
            TimeSource time,
            Duration readDeadline,
            ObjectAddress address,
            Function<PinnedVersion, ObjectId> idOf,
            StatisticsCounter statistics,
            PrefetchTracker prefetches) {
        this.fetching = requireNonNull(fetching, "fetching is null");
        this.time = requireNonNull(time, "time is null");
        this.readDeadline = requireNonNull(readDeadline, "readDeadline is null");
        this.address = requireNonNull(address, "address is null");
        this.idOf = requireNonNull(idOf, "idOf is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.prefetches = requireNonNull(prefetches, "prefetches is null");
    }

    /** A new read's hold on bytes of {@code pinned}; its deadline runs from now. */
    Acquisition open(PinnedVersion pinned) {
        return new Acquisition(
                fetching,
                readDeadline,
                time.deadlineAfter(readDeadline),
                address,
                pinned,
                idOf.apply(pinned),
                statistics,
                prefetches);
    }

    /** What one kind of read does at the steps where reads differ: its plan, and where its bytes go. */
    interface Planning {
        /**
         * The read's plan, under the object's lock, given every block of the window left in the index (those a
         * wanted range copies from already taken and handed to {@link #fromBlock}).
         */
        FetchPlan plan(List<Block> known);

        /** Wanted range {@code reader} copies from {@code block}, of which one reference is held for it. */
        void fromBlock(int reader, Block block, boolean cached);

        /** No room in the budget: {@code fetch} is to write {@code bytes} of wanted range {@code reader} into place. */
        void direct(int reader, BlockGet fetch, ByteRange bytes);

        /** A prefetch block of the plan was claimed. */
        default void prefetchClaimed(ByteRange bytes) {}
    }

    /**
     * Looks up, plans, claims and submits one read (see the class note).
     *
     * @param window where the cache is looked up: every block the plan must not fetch again lies in it
     * @param wanted the ranges the read copies out, sorted and disjoint; a prefetch gives none
     */
    void acquire(Acquisition acquisition, ByteRange window, List<ByteRange> wanted, Planning planning) {
        ReentrantLock lock = fetching.cache().lockFor(acquisition.id());
        lock.lock();
        try {
            List<Block> known = takeWanted(acquisition, window, wanted);
            for (Block block : known) {
                List<Integer> readers = VectoredPlanner.overlapping(wanted, block.range());
                for (int i = 0; i < readers.size(); i++) {
                    if (i > 0) {
                        acquisition.retainAgain(block); // taking it held the first reader's reference
                    }
                    planning.fromBlock(readers.get(i), block, true);
                }
            }
            claim(acquisition, planning.plan(known), wanted, planning);
        } finally {
            lock.unlock();
        }
        acquisition.submit();
    }

    /** The blocks of {@code window} in the index, every one a wanted range overlaps taken. */
    private static List<Block> takeWanted(Acquisition acquisition, ByteRange window, List<ByteRange> wanted) {
        while (true) {
            List<Block> known = acquisition.blocksOverlapping(window);
            boolean lookAgain = false;
            for (Block block : known) {
                if (!VectoredPlanner.overlapping(wanted, block.range()).isEmpty() && !acquisition.take(block)) {
                    lookAgain = true;
                }
            }
            if (!lookAgain) {
                return known;
            }
        }
    }

    private static void claim(Acquisition acquisition, FetchPlan plan, List<ByteRange> wanted, Planning planning) {
        for (PlannedGet get : plan.gets()) {
            BlockGet fetch = acquisition.newFetch(get.range(), get.prefetch());
            for (PlannedBlock planned : get.blocks()) {
                Block block = acquisition.claimFor(fetch, planned.bytes(), get.prefetch(), false);
                if (block == null && get.prefetch() && plan.prefetchesInARow()) {
                    return; // the ones after would leave a hole behind this one
                }
                if (block != null && get.prefetch()) {
                    planning.prefetchClaimed(planned.bytes());
                }
                List<Integer> readers = planned.readers();
                for (int i = 0; i < readers.size(); i++) {
                    int reader = readers.get(i);
                    if (block != null) {
                        acquisition.retainClaimed(block, i == 0);
                        planning.fromBlock(reader, block, false);
                        continue;
                    }
                    ByteRange asked = wanted.get(reader);
                    long from = Math.max(planned.bytes().start(), asked.start());
                    long to = Math.min(planned.bytes().end(), asked.end());
                    if (from < to) {
                        planning.direct(reader, fetch, new ByteRange(from, to));
                    }
                }
            }
        }
    }
}
