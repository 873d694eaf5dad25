package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.BucketGovernors;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchScheduler;
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
 * A factory's read engine, wired once: the GET path every request goes through, the throttle governors of its
 * buckets, what its closed streams' predictions wasted, and the collaborators its streams share. It opens the
 * factory's streams' readers ({@link #open}) and sends its listing requests ({@link #list}); nothing reaches into
 * it for its parts, so a read's path can be followed from the constructors. Thread-safe.
 */
public final class ReadEngine {
    private final ObjectReader.Shared shared;
    private final BucketGovernors governors;
    private final RetryingSender gets;

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
        requireNonNull(cache, "cache is null");
        requireNonNull(metadata, "metadata is null");
        requireNonNull(scheduler, "scheduler is null");
        requireNonNull(planner, "planner is null");
        requireNonNull(coalescer, "coalescer is null");
        requireNonNull(resilience, "resilience is null");
        requireNonNull(time, "time is null");
        this.governors = new BucketGovernors(resilience.throttle(), time);
        AttemptSender sender =
                new AttemptSender(client, exchanges, resilience.firstByteTimeout(), resilience.hedge(), time);
        BodyWatchdog watchdog = new BodyWatchdog(time, resilience.betweenBytesTimeout());
        this.gets = new RetryingSender(
                planner.settings().maxRequestSize(),
                resilience.retry(),
                sender,
                watchdog,
                governors,
                resilience.readDeadline(),
                time);
        this.shared = new ObjectReader.Shared(
                new Fetching(cache, scheduler, gets),
                metadata,
                time,
                resilience.readDeadline(),
                planner,
                coalescer,
                new WasteMemory(),
                governors,
                new OpenStreams(scheduler));
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
        return new ObjectReader(
                shared, address, identity, knownLength, knownEtag, etagPinnedByCaller, hint, statistics);
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
        return gets.list(request, abort, statistics);
    }

    /** What the engine's acquisitions work with: for tests of the engine's logic. */
    Fetching fetching() {
        return shared.fetching();
    }
}
