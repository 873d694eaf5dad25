package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.fetch.ThrottleGovernor;
import io.rangefetch.internal.fetch.ThrottleSettings;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.WasteMemory;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.internal.time.TimeSource;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * A factory's read engine, wired once, here: the cache, the scheduler, the sender every request goes through (its
 * attempts, watchdog and the throttle governors of its buckets), what its closed streams' predictions wasted, and the
 * planners. It opens the factory's streams' readers ({@link #open}) and sends its listing requests ({@link #list}).
 * Within this package it is also what a stream and its reads ask for those parts: they hold the engine, not a copy of
 * each part, so that no record of collaborators is handed from one constructor to the next. Thread-safe.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} wires it.
 */
public final class ReadEngine {
    private final BlockCache cache;
    private final MetadataCache metadata;
    private final FetchScheduler scheduler;
    private final ReadPlanner planner;
    private final RangeCoalescer coalescer;
    private final TimeSource time;
    private final Duration readDeadline;
    private final ThrottleGovernor.PerBucket governors;
    private final RetryingSender sender;
    // what closed streams' predictions wasted, which new streams of the same kind learn from
    private final WasteMemory waste = new WasteMemory();
    private final OpenStreams openStreams;

    /**
     * @param exchanges the threads requests are sent from, so that the first byte can be watched (see
     *     {@link AttemptSender}); {@code null} sends on fetch threads, unwatched. Give them exactly when
     *     {@link Resilience#watchesFirstBytes()}.
     * @param time the factory's one ticker and scheduler, which every timed part of the read path is given: the
     *     governors, the sender (hedge delay, first-byte timeout), the body watchdog, retries, read deadlines
     */
    public ReadEngine(
            ObjectClient client,
            BlockCache cache,
            MetadataCache metadata,
            FetchScheduler scheduler,
            ReadPlanner planner,
            RangeCoalescer coalescer,
            Resilience resilience,
            Executor exchanges,
            TimeSource time) {
        requireNonNull(client, "client is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.metadata = requireNonNull(metadata, "metadata is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.planner = requireNonNull(planner, "planner is null");
        this.coalescer = requireNonNull(coalescer, "coalescer is null");
        requireNonNull(resilience, "resilience is null");
        this.time = requireNonNull(time, "time is null");
        this.readDeadline = resilience.readDeadline();
        this.governors = new ThrottleGovernor.PerBucket(resilience.throttle(), time);
        AttemptSender attempts =
                new AttemptSender(client, exchanges, resilience.firstByteTimeout(), resilience.hedge(), time);
        BodyWatchdog watchdog = new BodyWatchdog(time, resilience.betweenBytesTimeout());
        this.sender = new RetryingSender(
                planner.settings().maxRequestSize(),
                resilience.retry(),
                attempts,
                watchdog,
                governors,
                resilience.readDeadline(),
                time);
        this.openStreams = new OpenStreams(scheduler);
    }

    /** An engine with no resilience at all (one attempt, nothing watched): for tests of the engine's logic. */
    public ReadEngine(
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

    /**
     * The reader of one new stream of {@code address}, reading as {@code identity}.
     *
     * @param knownLength the length if known, else -1
     * @param knownEtag the ETag if known, else {@code null}
     * @param etagPinnedByCaller whether the caller named the ETag (then a change is always an error)
     */
    public ObjectReader open(
            ObjectAddress address,
            AccessIdentity identity,
            long knownLength,
            String knownEtag,
            boolean etagPinnedByCaller,
            AccessHint hint,
            StatisticsCounter statistics) {
        return new ObjectReader(this, address, identity, knownLength, knownEtag, etagPinnedByCaller, hint, statistics);
    }

    /** The lowest limit of the buckets' throttle governors; -1 when none limits. */
    public int lowestThrottleLimit() {
        return governors.lowestLimit();
    }

    /**
     * Sends one ListObjectsV2 request as the factory sends every request: under the bucket's throttle governor,
     * retried like a GET, within the first-byte timeout; counted in {@code statistics}.
     */
    public ListPage list(ListRequest request, FetchAbort abort, StatisticsCounter statistics) throws IOException {
        return sender.list(request, abort, statistics);
    }

    // What the engine's streams and their reads work with (the engine is their one source of shared parts).

    /** The factory's block cache: every byte a read holds, in flight or loaded. */
    BlockCache cache() {
        return cache;
    }

    /** The learned lengths and ETags, by identity. */
    MetadataCache metadata() {
        return metadata;
    }

    /** The threads GETs run on, demand before prefetch; every wait of a read goes through it. */
    FetchScheduler scheduler() {
        return scheduler;
    }

    /** Every GET, HEAD and LIST is sent, retried and resumed here. */
    RetryingSender sender() {
        return sender;
    }

    /** The factory's planner, before a stream's format policy shapes it. */
    ReadPlanner planner() {
        return planner;
    }

    RangeCoalescer coalescer() {
        return coalescer;
    }

    /** The factory's one ticker and scheduler. */
    TimeSource time() {
        return time;
    }

    /** How long one read call may wait in all, on {@link #time()}'s ticker; zero for no limit. */
    Duration readDeadline() {
        return readDeadline;
    }

    WasteMemory waste() {
        return waste;
    }

    ThrottleGovernor.PerBucket governors() {
        return governors;
    }

    /** The open streams sharing the connections (how many parallel parts a request may have). */
    OpenStreams openStreams() {
        return openStreams;
    }
}
