package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides which ranges to GET for a read. Pure: given the read, the stream's history and what is cached, it
 * returns ranges; no I/O, clocks or threads, so property tests can cover it.
 *
 * <p>The shape of every request follows from S3's cost model: a GET costs a first-byte latency of tens of
 * milliseconds whatever its size, then streams at tens of MB/s. So:
 * <ul>
 *   <li>No request is smaller than {@code minRequestSize}: the bytes just past a small read are nearly free
 *       and often read next. The exceptions are a request that reaches the object's end and one that fills a
 *       whole gap between cached ranges (fetching cached bytes again would only waste them). A stream whose reads
 *       leave that padding unread plans its demand requests with a smaller minimum
 *       ({@link #withDemandMinimum}, decided by {@link AdaptiveMinimum}); prefetches, small objects read whole
 *       and the first request keep {@code minRequestSize}.</li>
 *   <li>No request is larger than {@code maxRequestSize}: larger ranges are cut into even parts fetched in
 *       parallel, since one connection's bandwidth, not the number of requests, then bounds the time.</li>
 *   <li>An object of at most {@code smallObjectSize} is fetched whole on its first miss, in parallel parts of
 *       at least {@code smallObjectPartSize}: one round trip serves every later read of it.</li>
 *   <li>A streaming reader whose reads follow one another {@code sequentialReads} times is sequential: it gets a
 *       prefetch window of {@code prefetchInitialSize}, which grows to twice the bytes it has read in a row, and
 *       opens to {@code prefetchMaxSize} at once when the reader catches up with bytes still in flight (it
 *       has read everything fetched so far: the network sets the pace). A window grows only as the reader
 *       actually reads, so a short run of small reads never leaves a large prefetch behind. The window is kept full a part at a time: as soon
 *       as one prefetch part's worth of it is free, it is refilled (growing first), so parts keep arriving
 *       while the reader reads instead of all at once after it has waited. Any jump resets the window, so a
 *       random reader never grows it.</li>
 *   <li>Prefetch never goes past the read's {@code prefetchEnd} (the end of a task's split): those bytes are
 *       another task's.</li>
 * </ul>
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} makes it, and {@code internal.read} plans every read
 * with it.
 */
public final class ReadPlanner {
    private final PlannerSettings settings;
    // What a demand request of a large object grows to: settings.minRequestSize() unless a stream adapted it.
    private final long demandMinimum;
    // The most parts a small object read whole is cut into: settings.prefetchParallelism() unless the factory is busy.
    private final int smallObjectParts;

    public ReadPlanner(PlannerSettings settings) {
        this(settings, settings.minRequestSize(), settings.prefetchParallelism());
    }

    private ReadPlanner(PlannerSettings settings, long demandMinimum, int smallObjectParts) {
        this.settings = settings;
        this.demandMinimum = demandMinimum;
        this.smallObjectParts = smallObjectParts;
    }

    /**
     * This planner cutting a small object read whole into at most {@code parts} parts, as many as the factory's
     * idle connections pay for ({@code FetchScheduler.partsAffordable}); never more than the settings allow.
     */
    public ReadPlanner withSmallObjectParts(int parts) {
        int capped = Math.max(1, Math.min(parts, settings.prefetchParallelism()));
        return capped == smallObjectParts ? this : new ReadPlanner(settings, demandMinimum, capped);
    }

    public PlannerSettings settings() {
        return settings;
    }

    /**
     * This planner for a stream whose format reads objects whole only up to {@code size} bytes (see
     * {@code FormatSession.smallObjectSize}); never raises the small-object size.
     */
    public ReadPlanner withSmallObjectSizeAtMost(long size) {
        return size >= settings.smallObjectSize()
                ? this
                : new ReadPlanner(settings.withSmallObjectSize(Math.max(0, size)), demandMinimum, smallObjectParts);
    }

    /**
     * This planner with the demand requests of objects that are not small grown to {@code size} bytes instead of
     * {@code minRequestSize} (see {@link AdaptiveMinimum}). Only a smaller minimum is accepted: every other size of
     * the settings is at least {@code minRequestSize}, so they stay valid, and {@link #lookupWindow}, which
     * reaches {@code minRequestSize} around a read, still shows the plan every cached range it could meet.
     * Prefetch requests are shaped as before.
     */
    public ReadPlanner withDemandMinimum(long size) {
        if (size < 1 || size > settings.minRequestSize()) {
            throw new IllegalArgumentException("A demand minimum must be between 1 and the minimum request size "
                    + settings.minRequestSize() + ", got " + size);
        }
        return size == demandMinimum ? this : new ReadPlanner(settings, size, smallObjectParts);
    }

    /** What demand requests of an object that is not small grow to. */
    public long demandMinimum() {
        return demandMinimum;
    }

    /** The part of the object whose cached ranges {@link #plan} must be shown for this read. */
    public ByteRange lookupWindow(ReadRequest read) {
        if (isSmall(read.objectLength())) {
            return new ByteRange(0, read.objectLength());
        }
        // A gap grows by up to the minimum request on either side: the planner must see what it could reach.
        long reach = settings.minRequestSize();
        if (read.streaming() && read.hint() != AccessHint.RANDOM) {
            reach += settings.prefetchMaxSize();
        }
        return new ByteRange(
                Math.max(0, read.position() - settings.minRequestSize()),
                Math.min(read.objectLength(), read.end() + reach));
    }

    /**
     * Plans one read. {@code cached} holds the disjoint ranges already cached or in flight (at least those in
     * {@link #lookupWindow}); the plan never fetches them again.
     */
    public ReadPlan plan(ReadRequest read, SequentialState state, List<ByteRange> cached) {
        Coverage coverage = new Coverage(cached);
        long objectLength = read.objectLength();
        List<ByteRange> demand = new ArrayList<>();
        if (!coverage.gaps(read.position(), read.end()).isEmpty()) {
            // A small object is fetched whole; otherwise only the gaps of this read, each grown to the minimum.
            long from = isSmall(objectLength) ? 0 : read.position();
            long to = isSmall(objectLength) ? objectLength : read.end();
            long minimum = isSmall(objectLength) ? settings.minRequestSize() : demandMinimum;
            for (ByteRange gap : coverage.gaps(from, to)) {
                ByteRange grown = grow(gap, coverage, objectLength, minimum);
                demand.addAll(isSmall(objectLength) ? splitSmall(grown) : split(grown));
            }
        }
        demand.forEach(coverage::add);

        if (!read.streaming()) {
            return new ReadPlan(demand, List.of(), state, read.end());
        }
        boolean follows = read.position() == state.nextExpected();
        int streak = follows ? state.followedBy(read.end()).streak() : 0;
        long streakStart = follows && state.streakStart() >= 0 ? state.streakStart() : read.position();
        int readsInARow = streak == Integer.MAX_VALUE ? streak : streak + 1;
        boolean sequential = read.hint() == AccessHint.SEQUENTIAL
                || (read.hint() == AccessHint.DETECT && readsInARow >= settings.sequentialReads());
        if (!sequential || settings.prefetchMaxSize() == 0) {
            return new ReadPlan(demand, List.of(), new SequentialState(read.end(), streak, 0, streakStart), read.end());
        }
        long window = state.window() == 0 ? settings.prefetchInitialSize() : state.window();
        if (read.starved() && state.window() > 0) {
            // The reader caught up with bytes still in flight: the network, not the reader, sets the pace, and
            // only a full window keeps enough parts in flight. Growing one round trip at a time would cost a
            // scan a round trip per doubling.
            window = settings.prefetchMaxSize();
        }
        long ahead = coverage.firstUncovered(read.end(), objectLength);
        List<ByteRange> prefetch = new ArrayList<>();
        // a caller's split end bounds prefetch: the bytes past it are another task's
        long prefetchLimit = Math.min(objectLength, read.prefetchEnd());
        if (ahead < prefetchLimit && ahead - read.end() <= window - refillStep(window)) {
            window = Math.max(window, Math.min(settings.prefetchMaxSize(), 2 * (read.end() - streakStart)));
            long horizon = Math.min(prefetchLimit, read.end() + window);
            for (ByteRange gap : coverage.gaps(ahead, horizon)) {
                ByteRange grown = grow(gap, coverage, prefetchLimit, settings.minRequestSize());
                coverage.add(grown);
                prefetch.addAll(split(grown, prefetchPartSize(window)));
            }
            ahead = coverage.firstUncovered(read.end(), objectLength);
        }
        return new ReadPlan(
                demand,
                prefetch,
                new SequentialState(read.end(), streak, window, streakStart),
                quietEnd(read.end(), ahead, objectLength, window));
    }

    /**
     * How much of the window must be free before it is refilled: one prefetch part (half the window, if that is
     * less), so the refill is worth a request.
     */
    private long refillStep(long window) {
        return Math.min(prefetchPartSize(window), window / 2);
    }

    /**
     * How far following streaming reads can go without a plan: while they stay on covered bytes and short of
     * the point where the window is refilled ({@code ahead - end <= window - refillStep}, see {@link #plan}).
     */
    private long quietEnd(long end, long ahead, long objectLength, long window) {
        long quiet = ahead >= objectLength ? objectLength : ahead - (window - refillStep(window)) - 1;
        return Math.max(end, quiet);
    }

    /**
     * The part size a prefetch window is cut into: the window over {@code prefetchParallelism}, within the
     * request limits. A sequential scan's throughput is the bytes in flight over one part's time, first-byte
     * latency plus transfer, so smaller parts spread over more connections fill the window sooner; the
     * minimum part size keeps parts from becoming latency-bound (and the request count down).
     */
    private long prefetchPartSize(long window) {
        return clamp(
                window / settings.prefetchParallelism(), settings.prefetchMinPartSize(), settings.maxRequestSize());
    }

    /**
     * The first request for an object whose ETag is not known yet (it learns the ETag, and the length when
     * {@code objectLength} is -1). Reading the tail of an object of unknown length asks for a suffix. Never
     * larger than the maximum request.
     */
    public FirstRequest firstRequest(long position, long length, long objectLength, boolean tail, AccessHint hint) {
        return firstRequest(position, length, objectLength, tail, hint, Long.MAX_VALUE);
    }

    /** The same, for a stream whose prefetch stops at {@code prefetchEnd} (see {@link ReadRequest#prefetchEnd()}). */
    public FirstRequest firstRequest(
            long position, long length, long objectLength, boolean tail, AccessHint hint, long prefetchEnd) {
        long size = clamp(length, settings.minRequestSize(), settings.maxRequestSize());
        if (objectLength < 0) {
            if (tail) {
                return new FirstRequest(null, size);
            }
            if (position == 0 && hint != AccessHint.RANDOM && settings.smallObjectSize() > 0) {
                // Most readers that start at 0 without knowing the length read on; this one request also reads
                // any small object whole. Not past the caller's split, though: those bytes are another task's.
                long readOn = Math.min(Math.min(settings.smallObjectSize(), prefetchEnd), settings.maxRequestSize());
                return new FirstRequest(ByteRange.ofLength(0, Math.max(size, readOn)), 0);
            }
            return new FirstRequest(ByteRange.ofLength(position, size), 0);
        }
        if (objectLength == 0) {
            throw new IllegalArgumentException("An empty object has nothing to fetch");
        }
        if (isSmall(objectLength) && objectLength <= settings.maxRequestSize()) {
            return new FirstRequest(new ByteRange(0, objectLength), 0);
        }
        if (tail) {
            return new FirstRequest(new ByteRange(Math.max(0, objectLength - size), objectLength), 0);
        }
        long start = Math.min(position, objectLength - 1);
        long end = Math.min(objectLength, start + size);
        return new FirstRequest(new ByteRange(Math.max(0, Math.min(start, end - settings.minRequestSize())), end), 0);
    }

    /**
     * The request a format policy's open fetch of the object's last {@code length} bytes sends when the ETag is
     * not known yet: exactly that tail (it reaches the object's end, so the minimum request does not apply: a
     * policy that knows its footer's size asks for no more), a suffix when the length is not known either, and
     * a small object whole. Never larger than the maximum request.
     */
    public FirstRequest openTail(long length, long objectLength) {
        long size = Math.max(1, Math.min(length, settings.maxRequestSize()));
        if (objectLength < 0) {
            return new FirstRequest(null, size);
        }
        if (objectLength == 0) {
            throw new IllegalArgumentException("An empty object has nothing to fetch");
        }
        if (isSmall(objectLength) && objectLength <= settings.maxRequestSize()) {
            return new FirstRequest(new ByteRange(0, objectLength), 0);
        }
        return new FirstRequest(new ByteRange(Math.max(0, objectLength - size), objectLength), 0);
    }

    /**
     * What a format policy's open fetch prefetches once the version is known: a small object whole; else the last
     * {@code length} bytes ({@code tail}: they reach the end, so they are taken as asked); else {@code length} bytes
     * from {@code start}, never fewer than the minimum request, or {@code null} when {@code start} is past the end.
     */
    public ByteRange openPrefetch(boolean tail, long start, long length, long objectLength) {
        if (objectLength <= 0) {
            throw new IllegalArgumentException("An empty object has nothing to fetch");
        }
        if (isSmall(objectLength)) {
            return new ByteRange(0, objectLength);
        }
        if (tail) {
            return new ByteRange(Math.max(0, objectLength - length), objectLength);
        }
        long size = Math.max(length, settings.minRequestSize());
        return start < objectLength ? new ByteRange(start, Math.min(objectLength, start + size)) : null;
    }

    /** Whether an object of {@code objectLength} bytes is small: fetched whole on its first miss. */
    public boolean isSmall(long objectLength) {
        return objectLength <= settings.smallObjectSize();
    }

    /** Grows a gap to {@code min} bytes: forward first, then backward, never over cached bytes. */
    private static ByteRange grow(ByteRange gap, Coverage coverage, long objectLength, long min) {
        if (gap.length() >= min) {
            return gap;
        }
        long end = Math.min(coverage.nextStart(gap.end(), objectLength), gap.start() + min);
        long start = gap.start();
        if (end - start < min) {
            start = Math.max(coverage.previousEnd(start), end - min);
        }
        return new ByteRange(start, end);
    }

    /**
     * Cuts a range of a small object into parallel parts: as many parts of at least the small-object part size
     * as this planner's parts allow ({@link #withSmallObjectParts}: the fetch concurrency, fewer when the factory is
     * busy), and never one over the maximum request size. The object then arrives in about one first-byte latency
     * plus a part's transfer, instead of plus the whole object's.
     */
    public List<ByteRange> splitSmall(ByteRange range) {
        long max = settings.maxRequestSize();
        long parallel = Math.min(smallObjectParts, range.length() / settings.smallObjectPartSize());
        return EvenParts.inParts(range, Math.max(Math.max(1, parallel), (range.length() + max - 1) / max));
    }

    /** Cuts a range into the fewest even parts of at most the maximum request size. */
    private List<ByteRange> split(ByteRange range) {
        return EvenParts.of(range, settings.maxRequestSize());
    }

    /**
     * Cuts a range into even parts of about {@code target} bytes (at least {@code target} each, since
     * {@code target} is at least the minimum request) and at most the maximum request size each.
     */
    private List<ByteRange> split(ByteRange range, long target) {
        long max = settings.maxRequestSize();
        return EvenParts.inParts(range, Math.max((range.length() + max - 1) / max, range.length() / target));
    }

    private static long clamp(long value, long min, long max) {
        return Math.max(min, Math.min(max, value));
    }
}
