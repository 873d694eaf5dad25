package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.PlannerSettings;
import io.rangefetch.internal.plan.StridePattern;
import io.rangefetch.internal.plan.WasteBudget;
import io.rangefetch.internal.plan.WasteMemory;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * One stream's predictions, the bytes fetched before the reader asks, and the waste they answer for: the sequential
 * ramp's prefetches (planned by {@link io.rangefetch.internal.plan.ReadPlanner}; here only how far they reach), the
 * reads a run of positioned reads at one {@link StridePattern stride} predicts, the format policy's prefetches, and
 * small objects read whole.
 *
 * <p><b>Waste.</b> What the ramp fetched ahead and the reader then jumped away from, the stride's predicted reads a
 * reader broke off from (or closed before), and what the format policy prefetched and the reader left unread count
 * against the stream's {@link WasteBudget}; past it, none predicts until the reader has read enough. A stream starts
 * with what the last stream of its file (or table) wasted past its bound, and its close reports its own to the
 * factory's {@link WasteMemory}, with how much of a small object it read: a table whose small objects are read a
 * little each stops having them read whole.
 *
 * <p><b>Strides.</b> A positioned read is shown to the stride pattern; the reads it predicts are prefetched on the
 * read's version, by the stream's prefetcher, submitted after the read's own GETs so that they never take a fetch
 * slot before it.
 *
 * <p><b>Threads and locks.</b> Thread-safe: positioned reads run concurrently. The budget has its own monitor; the
 * stride pattern's monitor is held only while it observes a read or gives up what it left behind; neither is taken
 * under another lock. The ramp's reach is a volatile field written only by streaming reads, which the stream
 * serializes; one of them writes it while claiming, under the object's stripe lock, so it takes no lock of its own.
 * Close reads it from any thread.
 */
final class Predictions {
    /** A prefetch that predicts nothing. */
    static final Runnable NOTHING = () -> {};

    private final ObjectAddress address;
    private final StatisticsCounter statistics;
    private final WasteMemory memory;
    private final WasteBudget waste;
    private final StridePattern stridePattern;
    private final BiConsumer<PinnedVersion, List<ByteRange>> prefetcher;
    // Whether reading this table's small objects whole has paid lately (the factory's WasteMemory, at open).
    private final boolean wholeReadsPay;
    // The largest object this stream's rules read whole, before the table's history: what its close reports on.
    private volatile long wholeReadSize;
    // Where the sequential ramp's prefetches of this stream reach; written only by streaming reads.
    private volatile long rampFetchedTo;

    /**
     * @param settings the factory's planner settings: the allowance (one initial prefetch window), the stride
     *     pattern's rules, and the largest object read whole until the format policy says otherwise
     * @param memory what the factory's closed streams' predictions wasted, by file and table
     * @param statistics the stream's: how many bytes its reader has read
     * @param prefetcher prefetches ranges of a pinned version, as the stream does, without waiting
     */
    Predictions(
            ObjectAddress address,
            PlannerSettings settings,
            WasteMemory memory,
            StatisticsCounter statistics,
            BiConsumer<PinnedVersion, List<ByteRange>> prefetcher) {
        this.address = requireNonNull(address, "address is null");
        requireNonNull(settings, "settings is null");
        this.memory = requireNonNull(memory, "memory is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.prefetcher = requireNonNull(prefetcher, "prefetcher is null");
        this.waste = new WasteBudget(settings.prefetchInitialSize(), memory.carried(address.bucket(), address.key()));
        this.wholeReadsPay = memory.readsWhole(address.bucket(), address.key());
        this.wholeReadSize = settings.smallObjectSize();
        this.stridePattern = new StridePattern(settings);
    }

    /** Whether predictions (the ramp, the stride, the format policy's) may fetch ahead, as the waste bound stands. */
    boolean allowed() {
        return waste.allowsPrediction(statistics.bytesServed());
    }

    /** Bytes a prediction fetched and the reader left unread (the format policy's prefetches tell them here). */
    void wasted(long bytes) {
        waste.wasted(bytes);
    }

    /** Whether this table's small objects are still read whole: reading them so has paid lately. */
    boolean wholeReadsPay() {
        return wholeReadsPay;
    }

    /** The stream's format policy set the largest object its rules read whole. */
    void readsWholeUpTo(long smallObjectSize) {
        this.wholeReadSize = smallObjectSize;
    }

    /** A streaming read claimed a prefetch of the ramp ending at {@code end}. */
    void rampReaches(long end) {
        rampFetchedTo = Math.max(rampFetchedTo, end);
    }

    /**
     * A streaming read at {@code position}, where a read following on would be at {@code expected}: when it does
     * not follow on, it leaves the ramp's window behind, the bytes it skipped of it, or all of it ahead of the last
     * read when it lands elsewhere. Their waste.
     */
    void streamingReadAt(long position, long expected) {
        long reach = rampFetchedTo;
        if (position == expected || reach <= expected) {
            return;
        }
        if (position > expected && position < reach) {
            waste.wasted(position - expected);
        } else {
            waste.wasted(reach - expected);
            rampFetchedTo = 0;
        }
    }

    /**
     * Shows a positioned read of {@code pinned} to the stride pattern; returns what prefetches the reads it
     * predicts, on the read's version, the first time it runs ({@link #NOTHING} when it predicts none).
     */
    Runnable strideFetch(PinnedVersion pinned, long position, long len, AccessHint hint, long prefetchEnd) {
        // backed off, the pattern is still followed (so it predicts again once allowed), but predicts nothing
        AccessHint strideHint = allowed() ? hint : AccessHint.RANDOM;
        List<ByteRange> predicted;
        long leftBehind;
        synchronized (stridePattern) {
            predicted = stridePattern.observe(position, len, pinned.length(), prefetchEnd, strideHint);
            leftBehind = stridePattern.takeAbandoned();
        }
        waste.wasted(leftBehind);
        if (predicted.isEmpty()) {
            return NOTHING;
        }
        AtomicBoolean started = new AtomicBoolean();
        return () -> {
            if (started.compareAndSet(false, true)) {
                prefetcher.accept(pinned, predicted);
            }
        };
    }

    /**
     * The stream closed with its reader at {@code nextExpected}: what the predictions fetched ahead of it is theirs
     * to answer for now. Reports the stream's waste past its bound, and how much of a small object it read, to the
     * factory's memory. Call once.
     *
     * @param knownLength the object's length if known by now, else -1; asked after the waste is reported
     */
    void closed(long nextExpected, LongSupplier knownLength) {
        long rampAhead = Math.max(0, rampFetchedTo - nextExpected);
        long strideAhead;
        synchronized (stridePattern) {
            strideAhead = stridePattern.pending() + stridePattern.takeAbandoned();
        }
        waste.wasted(rampAhead + strideAhead);
        long read = statistics.bytesServed();
        memory.closed(address.bucket(), address.key(), waste.excess(read));
        long length = knownLength.getAsLong();
        if (read > 0 && length > 0 && length <= wholeReadSize) {
            memory.smallObjectClosed(address.bucket(), address.key(), length, read);
        }
    }
}
