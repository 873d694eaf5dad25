package io.rangefetch.testing;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.RETRY_BASE_DELAY;
import static io.rangefetch.StreamConfig.RETRY_MAX_DELAY;

import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.format.FormatPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An in-memory bucket and the factories a test opens over it. Registered as an extension
 * ({@code @RegisterExtension}), it closes every factory after each test.
 *
 * <p>Every factory runs its GETs on one {@link QuiescentExecutor} of the fixture's, so a test can wait with
 * {@link #awaitQuiet()} until no fetch thread is still about to send a request before it counts requests or
 * bytes: a prefetch, a part of a small object read whole, or a format policy's open fetch may be sent after the
 * read that caused it has returned. A factory never shuts down an executor it was given, so the fixture closes
 * the executor itself, after the factories (whose close waits for their running fetches to end).
 */
public final class StreamFixture implements AutoCloseable, AfterEachCallback {
    public static final String BUCKET = "bucket";
    public static final int MIB = 1024 * 1024;

    private final InMemoryObjectClient client = new InMemoryObjectClient();
    private final QuiescentExecutor fetchThreads = new QuiescentExecutor();
    private final List<StreamFactory> factories = new ArrayList<>();
    private final Map<String, Long> lengths = new ConcurrentHashMap<>();

    public InMemoryObjectClient client() {
        return client;
    }

    public StreamFactory factory(StreamConfig config) {
        return register(builder(config));
    }

    /** A factory that uses exactly {@code policies} as its format policies, instead of those on the class path. */
    public StreamFactory factory(StreamConfig config, List<FormatPolicy> policies) {
        return register(builder(config).formatPolicies(policies));
    }

    /**
     * A factory whose time is {@code time}'s: its ticker stands still and its delayed work (timeouts, hedges,
     * backoffs, deadlines, watchdog checks) waits until the test advances it.
     */
    public StreamFactory factory(StreamConfig config, ManualTime time) {
        return register(builder(config).ticker(time.ticker()).scheduler(time.scheduler()));
    }

    /** A factory with a 256 MiB cache (so tests do not depend on the JVM's heap size), no backoff and no hedging. */
    public StreamFactory factory() {
        // No retry waits: a test that makes GETs fail waits for no backoff (its retries still go through the
        // scheduler's backoff path, with a zero delay). No hedging: a hedge is a second GET of the same bytes, sent
        // when a first byte is 30 ms late on the real clock, which a loaded machine produces; the tests that count
        // GETs must not count the machine's speed. ResilienceTest hedges on a clock it moves.
        return factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(StreamConfig.HEDGE_ENABLED, false)
                .set(RETRY_BASE_DELAY, java.time.Duration.ZERO)
                .set(RETRY_MAX_DELAY, java.time.Duration.ZERO)
                .build());
    }

    private StreamFactory.Builder builder(StreamConfig config) {
        return StreamFactory.builder(client).config(config).executor(fetchThreads);
    }

    private StreamFactory register(StreamFactory.Builder builder) {
        StreamFactory factory = builder.build();
        factories.add(factory);
        return factory;
    }

    /**
     * Waits until no fetch of any of the fixture's factories runs or is queued behind a running one, and fails
     * the test if that takes longer than the executor's bound. Call it once the test's reads have returned and
     * before counting; never while a test holds a response body back ({@link InMemoryObjectClient#holdBodies}):
     * the fetch reading it runs until the body is released, so the wait would only time out.
     */
    public void awaitQuiet() {
        boolean quiet;
        try {
            quiet = fetchThreads.awaitQuiet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for the fetch threads to go quiet", e);
        }
        if (!quiet) {
            throw new AssertionError("Fetches were still running after the wait: is a response body held?");
        }
    }

    /** Waits (bounded) until at most {@code fetches} fetches run, the others having ended: those a test holds. */
    public void awaitQuietExcept(int fetches) {
        try {
            if (!fetchThreads.awaitAtMost(fetches)) {
                throw new AssertionError("More than " + fetches + " fetches were still running after the wait");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for fetches to end", e);
        }
    }

    /** Stores {@code length} bytes derived from the key; returns them. */
    public byte[] put(String key, int length) {
        byte[] data = TestData.bytes(length, key.hashCode());
        client.put(BUCKET, key, data);
        lengths.put(key, (long) length);
        return data;
    }

    public long length(String key) {
        return lengths.get(key);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        try {
            factories.forEach(StreamFactory::close);
        } finally {
            try {
                fetchThreads.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
