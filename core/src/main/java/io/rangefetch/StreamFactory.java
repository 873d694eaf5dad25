package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.S3Location;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.events.FactoryClosedEvent;
import io.rangefetch.internal.events.FactoryOpenedEvent;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.identity.CredentialsIdentities;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.read.ObjectReader;
import io.rangefetch.internal.read.ReadEngine;
import io.rangefetch.internal.read.Resilience;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.internal.time.TimeSource;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Opens {@link SeekableS3InputStream}s. One factory is meant to live as long as the application and serve all
 * its streams: it holds the block cache (one memory budget for every stream), the learned lengths and ETags,
 * and the threads that run GETs.
 *
 * <p>Thread-safe. {@link #close()} cancels queued fetches, aborts running ones (cutting their connections, so it
 * waits for nothing longer than that), stops every thread the factory started and drops the cache; streams
 * still open then fail their next read that needs a request with an {@link java.io.IOException} saying so. The S3
 * client or {@link ObjectClient} handed to a factory stays open: its owner closes it.
 *
 * <p><b>Time.</b> A factory has one ticker (monotonic nanoseconds; {@link System#nanoTime()} unless the builder is
 * given another) and one scheduler for delayed work (a thread of its own, {@code rangefetch-timer-N-1}, started at
 * the first delayed task, let go when idle and stopped by {@link #close()}, unless the builder is given one). Every
 * timed part measures on that ticker and ends its waits through that scheduler: the fetch scheduler's backoffs and
 * read deadlines, the throttle governors, hedging and the first-byte timeout, the body watchdog, retries, listing
 * and the metadata's freshness. Tests give a ticker they move and a scheduler they run, and never wait.
 *
 * <p><b>What it does itself.</b> It is the public entry point and its builder (nested, as users expect to find it);
 * it wires the engine ({@code ReadEngine}) once, works out a stream's identity and what the factory knows of its
 * object, and closes everything in order. The rest is others': its threads are {@link FactoryThreads}', choosing
 * and starting a stream's format session is {@link FormatPolicies}', a listing's checks and start are
 * {@link ObjectListing}'s, and what a read does is the engine's.
 */
public final class StreamFactory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamFactory.class);

    private final StreamConfig config;
    private final ObjectClient client;
    private final ReadEngine engine;
    private final BlockCache cache;
    private final MetadataCache metadata;
    private final CredentialsIdentities identities;
    private final FetchScheduler scheduler;
    private final TimeSource time;
    private final StatisticsCounter statistics = StatisticsCounter.root();
    private final FormatPolicies formats;
    private final FactoryThreads threads;
    // the factory's life, committed when it closes while a recording wants it
    private final FactoryClosedEvent life = new FactoryClosedEvent();
    private volatile boolean closed;

    private StreamFactory(Builder builder) {
        this.config = builder.config;
        this.client = builder.client;
        Resilience resilience = EngineSettings.resilience(config);
        this.threads = new FactoryThreads(builder.executor, builder.scheduler, resilience.watchesFirstBytes());
        TimeSource time = new TimeSource(builder.ticker, threads.timer());
        this.formats = builder.formatPolicies == null
                ? FormatPolicies.discover(config)
                : FormatPolicies.of(builder.formatPolicies, config);
        this.cache = new BlockCache(config.get(StreamConfig.CACHE_MAX_MEMORY));
        this.metadata = new MetadataCache(
                config.get(StreamConfig.METADATA_TTL), config.get(StreamConfig.METADATA_MAX_ENTRIES), time::nanos);
        // an open waits for its credentials no longer than a read waits for its bytes
        this.identities = new CredentialsIdentities(client.credentials(), config.get(StreamConfig.READ_DEADLINE));
        this.scheduler = new FetchScheduler(
                config.get(StreamConfig.FETCH_MAX_CONCURRENCY), threads.fetches(), threads.ownedFetches(), time);
        this.engine = new ReadEngine(
                client,
                cache,
                metadata,
                scheduler,
                new ReadPlanner(EngineSettings.planner(config)),
                new RangeCoalescer(EngineSettings.coalescer(config)),
                resilience,
                threads.exchanges(),
                time);
        this.time = time;
        life.begin();
        FactoryOpenedEvent opened = new FactoryOpenedEvent();
        if (opened.shouldCommit()) {
            opened.factory = threads.id();
            opened.memoryBudget = config.get(StreamConfig.CACHE_MAX_MEMORY);
            opened.commit();
        }
        RangefetchMetrics.jvm().opened(this);
        OpenTelemetryPresence.factoryOpened();
    }

    /** A factory over the SDK's async client (Netty or CRT), which stays the caller's. */
    public static StreamFactory create(S3AsyncClient s3, StreamConfig config) {
        return builder(ObjectClient.of(s3)).config(config).build();
    }

    /** A factory over the SDK's sync client, which stays the caller's. */
    public static StreamFactory create(S3Client s3, StreamConfig config) {
        return builder(ObjectClient.of(s3)).config(config).build();
    }

    public static StreamFactory create(ObjectClient client, StreamConfig config) {
        return builder(client).config(config).build();
    }

    /** For a caller-supplied executor or clock. */
    public static Builder builder(ObjectClient client) {
        return new Builder(client);
    }

    public SeekableS3InputStream open(S3Location location) {
        return open(location, OpenOptions.defaults());
    }

    /**
     * Opens a stream. The length and ETag come from {@code options}, else from what this factory learned of the
     * object recently, else from the stream's first GET. The stream's format policy (chosen by the read policy
     * hint or the key's extension: see {@link io.rangefetch.format.FormatPolicy}) may start a fetch now, such as
     * a Parquet file's footer, which is then also the GET that learns the length and ETag; this never waits for
     * it. Without a policy, opening sends no request.
     */
    public SeekableS3InputStream open(S3Location location, OpenOptions options) {
        requireNonNull(location, "location is null");
        requireNonNull(options, "options is null");
        if (closed) {
            throw new IllegalStateException("Stream factory is closed; cannot open " + location);
        }
        ObjectAddress address = new ObjectAddress(
                location,
                options.versionId().orElse(null),
                options.sseCustomerKey().orElse(null),
                options.credentials().orElse(null));
        AccessIdentity identity = identities.of(address.credentials(), address.sseCustomerKey());
        long length = options.length().orElse(-1);
        String etag = options.etag().orElse(null);
        if (length < 0 || etag == null) {
            Optional<ObjectMetadata> learned =
                    metadata.get(location.bucket(), location.key(), address.versionId(), identity);
            if (learned.isPresent()
                    && (etag == null || etag.equals(learned.get().etag()))) {
                length = learned.get().length();
                etag = learned.get().etag();
            }
        }
        StatisticsCounter streamStatistics = statistics.child();
        ObjectReader reader = engine.open(
                address,
                identity,
                length,
                etag,
                options.etag().isPresent(),
                FormatPolicies.accessHintOf(options.readPolicy()),
                streamStatistics);
        try {
            FormatSession session = formats.open(location, options, config, reader, threads.fetches());
            return new SeekableS3InputStream(location, reader, streamStatistics, this::isClosed, session);
        } catch (RuntimeException | Error e) {
            try {
                reader.close(); // nobody will: it counts as an open stream until closed
            } catch (RuntimeException | Error closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * Lists the objects under many locations with few ListObjectsV2 calls. A location whose key ends in {@code /}
     * names every object under it ({@code s3://b/t/p=1/}); any other names the object with that key and every
     * object under it as a directory ({@code s3://b/t/p=1} names {@code t/p=1} and {@code t/p=1/...}, not
     * {@code t/p=1-x/...}). Duplicates and nested locations are listed once; folder markers (keys ending in
     * {@code /}) are left out; a location with nothing under it adds nothing.
     *
     * <p>The wanted keys are sorted and split into a few cursors, each listing its group's common prefix 1,000
     * keys a page and restarting with {@code StartAfter} just before the next wanted location whenever the rest
     * of a page lies past the current one (see README, "Listing many partitions"). Cursors run in parallel
     * ({@code list.parallelism}) as fetches of this factory, under its {@code fetch.max-concurrency}, the
     * bucket's throttle governor and the retry settings; S3 Express directory buckets ({@code --x-s3}) are listed
     * one location at a time. What a listing finds goes into the factory's metadata: opening a listed object
     * sends no HEAD, and a small one is read whole in its first GET, under {@code If-Match}.
     *
     * <p>The listing starts now and is read lazily; close it (try-with-resources) when done.
     *
     * @throws IllegalArgumentException if {@code locations} or one of them is null, or a key is longer than S3
     *     allows (1,024 bytes of UTF-8) or not valid Unicode
     * @throws IllegalStateException if the factory is closed
     */
    public ObjectListing list(Collection<S3Location> locations) {
        if (locations == null) {
            throw new IllegalArgumentException("locations is null");
        }
        if (closed) {
            throw new IllegalStateException("Stream factory is closed; cannot list " + locations.size() + " locations");
        }
        // listed under the client's own credentials: what it finds is told to streams of that identity only
        AccessIdentity listedAs = identities.of(null, null);
        return ObjectListing.start(
                locations,
                EngineSettings.listing(config),
                scheduler,
                time,
                (request, abort) -> engine.list(request, abort, statistics),
                listed -> metadata.put(
                        listed.location().bucket(),
                        listed.location().key(),
                        null,
                        listedAs,
                        new ObjectMetadata(listed.length(), listed.etag())));
    }

    /** Totals over every stream this factory opened, and the LIST requests of its listings. */
    public StreamStatistics statistics() {
        return SeekableS3InputStream.snapshot(statistics, engine.lowestThrottleLimit())
                .withListRequests(statistics.listRequests());
    }

    public StreamConfig config() {
        return config;
    }

    /** Bytes the block cache holds now, requests in flight included. */
    public long cacheMemoryBytes() {
        return cache.heldBytes();
    }

    /** The most bytes the block cache ever held at once; never above {@code cache.max-memory}. */
    public long peakCacheMemoryBytes() {
        return cache.peakHeldBytes();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Stops every fetch and every thread this factory started, then drops the cache and the learned metadata.
     * Never throws; fetch threads that do not stop in time are logged. The S3 client or {@link ObjectClient} the
     * factory was given is not closed: it is its owner's.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            scheduler.close();
        } finally {
            threads.stopExchangesAndTimer(); // after the fetches: a backoff's requeue finds its fetch ended
            cache.clear();
            metadata.clear();
            logSummary();
        }
    }

    /** One line at INFO, once every fetch has ended: what the factory's streams and listings cost and served. */
    private void logSummary() {
        try {
            StreamStatistics figures = statistics();
            RangefetchMetrics.jvm().closed(this, figures);
            LOG.info(
                    "Rangefetch factory {} closed: {}; cache peak {} MiB of {} MiB",
                    threads.id(),
                    figures.summary(),
                    cache.peakHeldBytes() >> 20,
                    config.get(StreamConfig.CACHE_MAX_MEMORY) >> 20);
            life.end();
            if (life.shouldCommit()) {
                life.factory = threads.id();
                life.summary = figures.summary();
                life.gets = figures.getRequests();
                life.bytesFetched = figures.bytesFetched();
                life.bytesServed = figures.bytesServed();
                life.cacheHits = figures.cacheHits();
                life.cacheMisses = figures.cacheMisses();
                life.prefetchedUnread = figures.prefetchedBytesUnread();
                life.retries = figures.retries();
                life.throttled = figures.throttledResponses();
                life.cachePeak = cache.peakHeldBytes();
                life.commit();
            }
        } catch (RuntimeException e) {
            // a summary that cannot be made costs a log line, not the close
        }
    }

    /** Not thread-safe. */
    public static final class Builder {
        private final ObjectClient client;
        private StreamConfig config;
        private Executor executor;
        private LongSupplier ticker = System::nanoTime;
        private String tickerFrom; // which of ticker() and clock() set it, to refuse the other
        private ScheduledExecutorService scheduler;
        private List<FormatPolicy> formatPolicies;

        private Builder(ObjectClient client) {
            this.client = requireNonNull(client, "client is null");
        }

        public Builder config(StreamConfig config) {
            this.config = requireNonNull(config, "config is null");
            return this;
        }

        /**
         * Runs GETs on {@code executor} instead of threads the factory starts; the factory never shuts it down.
         * It must not be the common pool's caller-runs kind: a fetch may block on the network.
         */
        public Builder executor(Executor executor) {
            this.executor = requireNonNull(executor, "executor is null");
            return this;
        }

        /**
         * The factory's one ticker, in monotonic nanoseconds as {@link System#nanoTime()} (the default): every
         * deadline, timeout, delay and latency, and metadata freshness ({@code metadata.ttl}), is measured on it.
         * A ticker that does not follow real time (a test's) should come with a {@link #scheduler} that follows it,
         * or delayed work runs on real time while deadlines are looked at on the ticker.
         */
        public Builder ticker(LongSupplier nanoTicker) {
            requireNonNull(nanoTicker, "nanoTicker is null");
            setTicker(nanoTicker, "ticker");
            return this;
        }

        /**
         * The factory's one ticker, read off {@code clock}: the same as {@link #ticker} given the clock's instant in
         * nanoseconds. Kept for callers that move a {@link Clock} to test metadata freshness.
         */
        public Builder clock(Clock clock) {
            requireNonNull(clock, "clock is null");
            setTicker(
                    () -> {
                        Instant now = clock.instant();
                        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
                    },
                    "clock");
            return this;
        }

        private void setTicker(LongSupplier ticker, String from) {
            if (tickerFrom != null && !tickerFrom.equals(from)) {
                throw new IllegalStateException("The factory's ticker was already set by " + tickerFrom
                        + "(...); it has one time source, so " + from + "(...) cannot set it too");
            }
            this.ticker = ticker;
            this.tickerFrom = from;
        }

        /**
         * Runs the factory's delayed work (backoffs, hedge delays, timeouts, deadlines, watchdog checks) on
         * {@code scheduler} instead of a thread the factory starts; the factory never shuts it down. Its tasks are
         * short and never block; one thread is enough. It must not be the {@link #executor} fetches run on, as a
         * fetch may wait for one of its tasks. Closing the factory cancels none of them: each finds its work
         * ended and does nothing.
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = requireNonNull(scheduler, "scheduler is null");
            return this;
        }

        /**
         * Uses exactly these format policies instead of those {@link java.util.ServiceLoader} finds on the class
         * path (an empty list turns format awareness off).
         */
        public Builder formatPolicies(List<FormatPolicy> policies) {
            this.formatPolicies = List.copyOf(requireNonNull(policies, "policies is null"));
            return this;
        }

        public StreamFactory build() {
            if (scheduler != null && scheduler == executor) {
                // a fetch waits for the scheduler's tasks (a deadline, a backoff): on its own pool it could wait on
                // a thread that is itself a fetch waiting
                throw new IllegalArgumentException("The scheduler must not be the fetch executor: fetches wait for "
                        + "the scheduler's tasks; give the factory two executors");
            }
            if (config == null) {
                config = StreamConfig.defaults();
            }
            return new StreamFactory(this);
        }
    }
}
