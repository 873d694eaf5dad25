package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ListPage;
import io.rangefetch.client.ListRequest;
import io.rangefetch.client.ObjectClient;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.BucketGovernors;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.fetch.ThrottleSettings;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.WasteMemory;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.internal.time.TimeSource;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/** What every reader of one factory shares. Immutable but for the count of open streams. */
public final class ReaderContext {
    private final ObjectClient client;
    private final BlockCache cache;
    private final MetadataCache metadata;
    private final FetchScheduler scheduler;
    private final ReadPlanner planner;
    private final RangeCoalescer coalescer;
    private final BucketGovernors governors;
    private final WasteMemory waste = new WasteMemory();
    // the factory's streams opened and not yet closed: they share its idle connections
    private final AtomicInteger openStreams = new AtomicInteger();
    private final Duration readDeadline;
    private final TimeSource time;
    private final GetPath gets;

    /**
     * @param exchanges the threads requests are sent from, so that the first byte can be watched (see
     *     {@link AttemptSender}); {@code null} sends on fetch threads, unwatched. Give them exactly when
     *     {@link Resilience#watchesFirstBytes()}.
     * @param time the factory's one ticker and scheduler, which every timed part of the read path is given: the
     *     governors, the sender (hedge delay, first-byte timeout), the body watchdog, retries, read deadlines
     */
    public ReaderContext(
            ObjectClient client,
            BlockCache cache,
            MetadataCache metadata,
            FetchScheduler scheduler,
            ReadPlanner planner,
            RangeCoalescer coalescer,
            Resilience resilience,
            Executor exchanges,
            TimeSource time) {
        this.client = requireNonNull(client, "client is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.metadata = requireNonNull(metadata, "metadata is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.planner = requireNonNull(planner, "planner is null");
        this.coalescer = requireNonNull(coalescer, "coalescer is null");
        requireNonNull(resilience, "resilience is null");
        this.time = requireNonNull(time, "time is null");
        this.governors = new BucketGovernors(resilience.throttle(), time);
        this.readDeadline = resilience.readDeadline();
        AttemptSender sender =
                new AttemptSender(client, exchanges, resilience.firstByteTimeout(), resilience.hedge(), time);
        BodyWatchdog watchdog = new BodyWatchdog(time, resilience.betweenBytesTimeout());
        this.gets = new GetPath(
                planner.settings().maxRequestSize(),
                resilience.retry(),
                sender,
                watchdog,
                governors,
                resilience.readDeadline(),
                time);
    }

    /** A context with no resilience at all (one attempt, nothing watched): for tests of the engine's logic. */
    public ReaderContext(
            ObjectClient client,
            BlockCache cache,
            MetadataCache metadata,
            FetchScheduler scheduler,
            ReadPlanner planner,
            RangeCoalescer coalescer,
            RetrySettings retry,
            TimeSource time) {
        this(
                client,
                cache,
                metadata,
                scheduler,
                planner,
                coalescer,
                new Resilience(
                        retry,
                        Duration.ZERO,
                        Duration.ZERO,
                        Duration.ZERO,
                        ThrottleSettings.off(),
                        HedgeSettings.off()),
                null,
                time);
    }

    /** What the predictions of the factory's closed streams wasted, by file and table. */
    public WasteMemory waste() {
        return waste;
    }

    /** A stream of the factory opened; {@link #streamClosed} once when it closes. */
    void streamOpened() {
        openStreams.incrementAndGet();
    }

    void streamClosed() {
        openStreams.decrementAndGet();
    }

    /**
     * How many parallel parts a request planned now may be cut into, at most {@code cap}: a share of the idle
     * connections among the open streams ({@link FetchScheduler#partsAffordable}).
     */
    int partsAffordable(int cap) {
        return scheduler.partsAffordable(cap, openStreams.get());
    }

    public ObjectClient client() {
        return client;
    }

    public BlockCache cache() {
        return cache;
    }

    public MetadataCache metadata() {
        return metadata;
    }

    public FetchScheduler scheduler() {
        return scheduler;
    }

    public ReadPlanner planner() {
        return planner;
    }

    public RangeCoalescer coalescer() {
        return coalescer;
    }

    /** Each bucket's throttle governor. */
    public BucketGovernors governors() {
        return governors;
    }

    /** The factory's ticker and scheduler. */
    TimeSource time() {
        return time;
    }

    /** How long one read call may wait in all; zero for no limit. */
    Duration readDeadline() {
        return readDeadline;
    }

    /**
     * Sends one ListObjectsV2 request as the factory sends every request: under the bucket's throttle governor,
     * retried like a GET, within the first-byte timeout; counted in {@code statistics}.
     */
    public ListPage list(ListRequest request, FetchAbort abort, StatisticsCounter statistics) throws IOException {
        return gets.list(request, abort, statistics);
    }

    GetPath gets() {
        return gets;
    }
}
