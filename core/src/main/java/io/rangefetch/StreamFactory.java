package io.rangefetch;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Ticker;
import io.rangefetch.client.ObjectAddress;
import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectMetadata;
import io.rangefetch.client.SdkAsyncObjectClient;
import io.rangefetch.client.SdkSyncObjectClient;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.list.ListingSettings;
import io.rangefetch.internal.list.ParallelListing;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.read.ObjectReader;
import io.rangefetch.internal.read.ReaderContext;
import io.rangefetch.internal.read.Resilience;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatSession;
import io.rangefetch.format.OpenFetch;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 */
public final class StreamFactory implements AutoCloseable {
    private static final AtomicInteger FACTORY_IDS = new AtomicInteger();
    private static final Logger LOG = LoggerFactory.getLogger(StreamFactory.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 10;
    /** How long an idle thread of the factory's timer lives, as a cached pool's threads do. */
    private static final long IDLE_THREAD_SECONDS = 60;
    /** S3's longest key, in bytes of UTF-8. */
    private static final int MAX_KEY_BYTES = 1024;

    private final StreamConfig config;
    private final ObjectClient client;
    private final ReaderContext context;
    private final StatisticsCounter statistics = StatisticsCounter.root();
    private final FormatPolicies formats;
    private final Executor executor;
    // Started by the factory whatever executor it was given, so stopped by its close().
    private final ExecutorService exchanges;
    private final ScheduledExecutorService timer;
    private volatile boolean closed;

    private StreamFactory(Builder builder) {
        this.config = builder.config;
        this.client = builder.client;
        ExecutorService ownedExecutor = null;
        Executor executor = builder.executor;
        int id = FACTORY_IDS.incrementAndGet();
        if (executor == null) {
            ownedExecutor = Executors.newCachedThreadPool(daemonThreads("rangefetch-fetch-" + id));
            executor = ownedExecutor;
        }
        Resilience resilience = EngineSettings.resilience(config);
        this.exchanges = !resilience.watchesFirstBytes() ? null
                : Executors.newCachedThreadPool(daemonThreads("rangefetch-exchange-" + id));
        this.timer = resilience.betweenBytesTimeout().isZero() ? null : idleReleasingTimer("rangefetch-watchdog-" + id);
        this.executor = executor;
        this.formats = builder.formatPolicies == null ? FormatPolicies.discover(config)
                : FormatPolicies.of(builder.formatPolicies, config);
        Clock clock = builder.clock;
        Ticker ticker = () -> {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        };
        this.context = new ReaderContext(
                client,
                new BlockCache(config.get(StreamConfig.CACHE_MAX_MEMORY)),
                new MetadataCache(config.get(StreamConfig.METADATA_TTL), config.get(StreamConfig.METADATA_MAX_ENTRIES),
                        ticker),
                new FetchScheduler(config.get(StreamConfig.FETCH_MAX_CONCURRENCY), executor, ownedExecutor),
                new ReadPlanner(EngineSettings.planner(config)),
                new RangeCoalescer(EngineSettings.coalescer(config)),
                resilience, exchanges, timer);
    }

    /** A factory over the SDK's async client (Netty or CRT), which stays the caller's. */
    public static StreamFactory create(S3AsyncClient s3, StreamConfig config) {
        return builder(new SdkAsyncObjectClient(s3)).config(config).build();
    }

    /** A factory over the SDK's sync client, which stays the caller's. */
    public static StreamFactory create(S3Client s3, StreamConfig config) {
        return builder(new SdkSyncObjectClient(s3)).config(config).build();
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
        ObjectAddress address = new ObjectAddress(location.bucket(), location.key(),
                options.versionId().orElse(null), options.sseCustomerKey().orElse(null));
        long length = options.length().orElse(-1);
        String etag = options.etag().orElse(null);
        if (length < 0 || etag == null) {
            Optional<ObjectMetadata> learned = context.metadata().get(location.bucket(), location.key(), address.versionId());
            if (learned.isPresent() && (etag == null || etag.equals(learned.get().etag()))) {
                length = learned.get().length();
                etag = learned.get().etag();
            }
        }
        StatisticsCounter streamStatistics = statistics.child();
        ObjectReader reader = new ObjectReader(context, address, length, etag, options.etag().isPresent(),
                hint(options.readPolicy()), streamStatistics);
        try {
            FormatSession session = formats.choose(location.key(), options.readPolicy())
                    .map(policy -> GuardedFormatSession.open(policy,
                            new StreamFormatView(location, options, config, reader, executor)))
                    .orElse(FormatSession.NONE);
            if (session != FormatSession.NONE) {
                ReadPolicy pattern = options.readPolicy() == ReadPolicy.SEQUENTIAL ? ReadPolicy.SEQUENTIAL
                        : FormatPolicies.readPolicyOf(session.accessPattern());
                reader.shapeReads(hint(pattern), session.prefetchEnd(), session::structureEnd,
                        session.smallObjectSize().orElse(config.get(StreamConfig.SMALL_OBJECT_SIZE)));
                OpenFetch fetch = session.openFetch();
                if (!fetch.isNone()) {
                    reader.startOpenFetch(fetch.tail(), fetch.start(), fetch.length(), session::opened);
                } else if (reader.knownLength() >= 0) {
                    session.opened();
                }
            }
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
            throw new IllegalStateException("Stream factory is closed; cannot list " + locations.size()
                    + " locations");
        }
        Map<String, List<String>> keysByBucket = new HashMap<>();
        for (S3Location location : locations) {
            if (location == null) {
                throw new IllegalArgumentException("A location to list is null: " + locations);
            }
            checkListableKey(location);
            keysByBucket.computeIfAbsent(location.bucket(), bucket -> new ArrayList<>()).add(location.key());
        }
        ListingSettings settings = EngineSettings.listing(config);
        ParallelListing listing = ParallelListing.start(keysByBucket, settings, context.scheduler(),
                (request, abort) -> context.list(request, abort, statistics),
                (bucket, entry) -> context.metadata().put(bucket, entry.key(), null,
                        new ObjectMetadata(entry.size(), entry.etag())));
        return new ObjectListing(listing);
    }

    private static void checkListableKey(S3Location location) {
        String key = location.key();
        CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder();
        if (!encoder.canEncode(key)) {
            throw new IllegalArgumentException("Cannot list " + location + ": its key is not valid Unicode");
        }
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("Cannot list " + location + ": its key is " + bytes
                    + " bytes of UTF-8, longer than S3 allows (" + MAX_KEY_BYTES + ")");
        }
    }

    /** Totals over every stream this factory opened, and the LIST requests of its listings. */
    public StreamStatistics statistics() {
        return SeekableS3InputStream.snapshot(statistics, context.governors().lowestLimit())
                .withListRequests(statistics.listRequests());
    }

    public StreamConfig config() {
        return config;
    }

    /** Bytes the block cache holds now, requests in flight included. */
    public long cacheMemoryBytes() {
        return context.cache().heldBytes();
    }

    /** The most bytes the block cache ever held at once; never above {@code cache.max-memory}. */
    public long peakCacheMemoryBytes() {
        return context.cache().peakHeldBytes();
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
            context.scheduler().close();
        } finally {
            stop(exchanges, "exchange");
            stop(timer, "watchdog");
            context.cache().clear();
            context.metadata().clear();
        }
    }

    private static AccessHint hint(ReadPolicy policy) {
        return switch (policy) {
            case SEQUENTIAL, TEXT -> AccessHint.SEQUENTIAL;
            case RANDOM -> AccessHint.RANDOM;
            case AUTO, COLUMNAR, PARQUET, ORC -> AccessHint.DETECT;
        };
    }

    /**
     * Stops threads the factory started besides the fetch threads. An exchange thread may still wait for an answer
     * whose fetch was aborted: interrupting it is all that can be done, and that answer is cut when it comes.
     */
    private static void stop(ExecutorService threads, String what) {
        if (threads == null) {
            return;
        }
        threads.shutdownNow();
        try {
            if (!threads.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                LOG.error("Rangefetch {} threads did not stop within {} s of close", what, CLOSE_TIMEOUT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The watchdog's timer: its one thread ends once idle for as long as the cached pools' do (a factory an engine
     * never closes keeps no thread), and a cancelled check leaves its queue at once.
     */
    private static ScheduledExecutorService idleReleasingTimer(String name) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemonThreads(name));
        timer.setKeepAliveTime(IDLE_THREAD_SECONDS, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Not thread-safe. */
    public static final class Builder {
        private final ObjectClient client;
        private StreamConfig config;
        private Executor executor;
        private Clock clock = Clock.systemUTC();
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

        /** The clock metadata freshness is measured with (tests move it instead of sleeping). */
        public Builder clock(Clock clock) {
            this.clock = requireNonNull(clock, "clock is null");
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
            if (config == null) {
                config = StreamConfig.defaults();
            }
            return new StreamFactory(this);
        }
    }
}
