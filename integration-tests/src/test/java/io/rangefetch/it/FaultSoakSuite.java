package io.rangefetch.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.RandomFaults;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A randomized soak: {@value #DEFAULT_THREADS} reader threads ({@link SoakReader}) read objects of 0 bytes to 30
 * MiB (sizes around the 8 MiB small-object and request limits among them) through one {@link EntryPoint} (Rangefetch
 * directly, {@code RangefetchS3FileIO} on Iceberg's client, or S3A with the factory) with a small cache,
 * while the proxy fails GETs at random with every kind of fault it has and one object is overwritten now and then
 * (where the server overwrites atomically, as S3 and MinIO do; {@link
 * io.rangefetch.testing.server.S3Server#overwritesAtomically}).
 * Every read returns the right bytes, of one version per stream, or throws an exception the faults excuse; none
 * hangs past the time limit; the cache stays within its budget; closing the factory and its client leaves no
 * thread and no connection behind. The counts are printed as one block.
 *
 * <p>System properties: {@code rangefetch.soak.reads} (reads that return checked bytes, default
 * {@value #DEFAULT_READS}), {@code rangefetch.soak.minutes} (the time limit, default {@value #DEFAULT_MINUTES}),
 * {@code rangefetch.soak.seed} (the faults' and the readers' seed; random by default, printed either way: a seed
 * replays the same choices, though threads interleave differently), {@code rangefetch.soak.threads}.
 */
public abstract class FaultSoakSuite extends EntryPointTestBase {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final int DEFAULT_READS = 3_000;
    private static final int DEFAULT_MINUTES = 4;
    private static final int DEFAULT_THREADS = 4;
    private static final long BUDGET = 32L * MIB;
    /** The defaults but for a small cache and short retry delays: faults are frequent here, and never last. */
    private static final Map<String, String> SETTINGS =
            Map.of("cache.max-memory", BUDGET / MIB + "MiB", "retry.base-delay", "1ms", "retry.max-delay", "20ms");

    private static final int[] SIZES = {
        0, 1, 100_003, MIB + 3, 8 * MIB - 1, 8 * MIB, 8 * MIB + 1, 12 * MIB + 5, 30 * MIB
    };
    private static final int OVERWRITTEN_SIZE = 9 * MIB + 13;
    /** Every version is kept to check reads against: this bounds the memory they take. */
    private static final int MAX_VERSIONS = 32;

    private static final Duration FAULT_FIRST_BYTE_DELAY = Duration.ofMillis(200);
    /** Reads that end in an IOException other than ObjectChanged: faults that outlast 8 attempts are rare. */
    private static final double MAX_OTHER_FAILURES = 0.02;

    private static final Duration CLOSE_GRACE = Duration.ofSeconds(10);

    private final long seed = Long.getLong("rangefetch.soak.seed", new SplittableRandom().nextLong());
    private final int reads = Integer.getInteger("rangefetch.soak.reads", DEFAULT_READS);
    private final Duration timeLimit =
            Duration.ofMinutes(Integer.getInteger("rangefetch.soak.minutes", DEFAULT_MINUTES));
    private final int threads = Integer.getInteger("rangefetch.soak.threads", DEFAULT_THREADS);
    private final List<SoakObject> objects = new ArrayList<>();
    private SoakObject overwritten;

    protected FaultSoakSuite() {
        super(NetworkModel.unshaped());
    }

    @BeforeAll
    void upload() {
        try (S3Client s3 = S3Clients.sync(server())) {
            for (int size : SIZES) {
                objects.add(upload(s3, "soak-" + size + ".bin", randomBytes(size, seed + size)));
            }
            overwritten = upload(s3, "overwritten.bin", randomBytes(OVERWRITTEN_SIZE, seed));
            objects.add(overwritten);
        }
    }

    @Test
    void readsUnderRandomFaultsReturnTheObjectsBytesOrSayWhy() throws Throwable {
        ShapingProxy proxy = faultingProxy();
        ProxyLedger ledger = countingLedger();
        Map<Fault, Long> faultsBefore = proxy.injectedFaults();
        int connectionsBefore = proxy.openConnections();
        int threadsBefore = liveThreads();
        ThreadLeakChecker threadsAtStart = ThreadLeakChecker.snapshot();
        SoakTally tally = new SoakTally();
        long started = System.nanoTime();
        proxy.setFaultFirstByteDelay(FAULT_FIRST_BYTE_DELAY);
        proxy.setRandomFaults(RandomFaults.seeded(seed)
                .with(Fault.SLOW_DOWN_503, 0.05)
                .with(Fault.RESET_MID_BODY, 0.03)
                .with(Fault.TRUNCATED_BODY, 0.03)
                .with(Fault.SERVER_ERROR_500, 0.02)
                .with(Fault.FIRST_BYTE_DELAY, 0.01));
        StreamStatistics[] statistics = new StreamStatistics[1];
        long[] peakCache = new long[1];
        boolean[] closesConnections = {true};
        Throwable failure = null;
        try (S3Client writer = S3Clients.sync(server())) {
            withEntryPoint(SETTINGS, entryPoint -> {
                closesConnections[0] = entryPoint.closesItsConnections();
                try {
                    runReaders(entryPoint, tally, writer, started);
                } finally {
                    statistics[0] = entryPoint.statistics();
                    peakCache[0] = entryPoint.peakCacheMemoryBytes();
                }
            });
        } catch (Throwable e) {
            failure = e;
        } finally {
            proxy.clearRandomFaults();
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        Map<Fault, Long> faults = faultsSince(faultsBefore, proxy.injectedFaults());
        // the entry point is closed (withEntryPoint saw its threads end), and so is its client: every connection it had
        // through the proxy ends, and the proxy's thread for it (unless the client's pool outlives the entry point)
        boolean connectionsClosed = !closesConnections[0] || proxy.awaitOpenConnections(connectionsBefore, CLOSE_GRACE);
        if (closesConnections[0]) {
            try {
                threadsAtStart.assertNoNewThreads(ShapingProxy.THREAD_NAME_PREFIX, CLOSE_GRACE);
            } catch (AssertionError e) {
                failure = failure == null ? e : failure;
            }
        }
        print(summary(
                tally,
                faults,
                ledger,
                statistics[0],
                peakCache[0],
                took,
                "live before " + threadsBefore + ", after " + liveThreads() + " (new: "
                        + threadsAtStart.newThreads("").stream()
                                .map(Thread::getName)
                                .toList() + "); rangefetch-* left after close: "
                        + threadsAtStart.newThreads(RANGEFETCH_THREADS).size(),
                "open before " + connectionsBefore + ", after " + proxy.openConnections()
                        + (closesConnections[0] ? "" : " (the client's pool outlives the entry point)")));
        if (failure != null) {
            throw failure;
        }

        assertThat(tally.failures()).as("failures (seed %d)", seed).isEmpty();
        assertThat(tally.outcomes(SoakTally.OK)).as("reads with checked bytes").isGreaterThanOrEqualTo(reads);
        assertThat(tally.outcomesOtherThan("ObjectChangedException"))
                .as("reads that failed (seed %d)", seed)
                .isLessThanOrEqualTo((long) (MAX_OTHER_FAILURES * tally.reads()));
        assertThat(peakCache[0]).as("the cache's peak").isLessThanOrEqualTo(BUDGET);
        assertThat(tally.maxSampledCache()).as("the cache's most sampled").isLessThanOrEqualTo(BUDGET);
        assertThat(connectionsClosed)
                .as("proxy connections back to %d", connectionsBefore)
                .isTrue();
        assertThat(statistics[0].retries()).as("retries").isPositive();
        assertThat(statistics[0].resumes()).as("resumes").isPositive();
        if (reads >= DEFAULT_READS) {
            assertThat(faults)
                    .as("faults injected")
                    .allSatisfy(
                            (fault, count) -> assertThat(count).as("%s", fault).isPositive());
        }
    }

    private Map<String, String> summary(
            SoakTally tally,
            Map<Fault, Long> faults,
            ProxyLedger ledger,
            StreamStatistics statistics,
            long peakCache,
            Duration took,
            String threads,
            String connections) {
        Map<String, String> summary = new LinkedHashMap<>(tally.lines());
        summary.put(
                "faults injected",
                faults.values().stream().mapToLong(Long::longValue).sum() + " " + faults);
        summary.put(
                "proxy answers",
                "GET " + ledger.gets() + ", HEAD " + ledger.heads() + "; 206 "
                        + ledger.responses(206) + ", 200 " + ledger.responses(200) + ", 412 " + ledger.responses(412)
                        + ", 500 " + ledger.responses(500) + ", 503 " + ledger.responses(503));
        if (statistics != null) {
            summary.put(
                    "factory",
                    "GETs " + statistics.getRequests() + ", HEADs " + statistics.headRequests()
                            + ", retries " + statistics.retries() + ", resumes " + statistics.resumes()
                            + ", cache hits "
                            + statistics.cacheHits() + ", fetched " + SoakTally.mib(statistics.bytesFetched())
                            + ", served "
                            + SoakTally.mib(statistics.bytesServed()));
            summary.put(
                    "throttle, hedges",
                    "503s seen " + statistics.throttledResponses() + ", governor limit at the "
                            + "end " + statistics.throttleLimit() + "; hedges sent " + statistics.hedgesSent()
                            + ", won "
                            + statistics.hedgesWon());
        }
        summary.put(
                "cache",
                "budget " + SoakTally.mib(BUDGET) + ", peak " + SoakTally.mib(peakCache) + ", most sampled "
                        + SoakTally.mib(tally.maxSampledCache()));
        summary.put("threads", threads);
        summary.put("proxy connections", connections);
        summary.put("time", took.toMillis() + " ms (limit " + timeLimit + ")");
        return summary;
    }

    /**
     * Runs the readers until {@link #reads} reads returned checked bytes, or one failed; overwrites
     * {@link #overwritten} every so many reads meanwhile; fails if that takes longer than {@link #timeLimit}.
     */
    private void runReaders(EntryPoint entryPoint, SoakTally tally, S3Client writer, long started) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong attempts = new AtomicLong();
        long overwriteEvery = Math.max(100, reads / MAX_VERSIONS);
        // where a GET racing a PUT may carry one version's ETag with another's bytes (S3Proxy), no check of
        // versions could tell Rangefetch's mistakes from the server's: overwrites are the atomic servers' part
        boolean overwrites = server().overwritesAtomically();
        Runnable afterRead = () -> {
            if (overwrites
                    && attempts.incrementAndGet() % overwriteEvery == 0
                    && overwritten.versions() < MAX_VERSIONS) {
                int version = overwritten.versions();
                overwritten.overwrite(
                        randomBytes(OVERWRITTEN_SIZE, seed + version),
                        content -> put(writer, "overwritten.bin", content));
                tally.overwritten();
            }
        };
        SplittableRandom random = new SplittableRandom(seed);
        AtomicInteger threadIds = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "fault-soak-reader-" + threadIds.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<?>> readers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                readers.add(pool.submit(new SoakReader(
                        entryPoint,
                        objects,
                        random.split(),
                        tally,
                        () -> !stop.get() && !tally.failed() && tally.outcomes(SoakTally.OK) < reads,
                        afterRead)));
            }
            long deadline = started + timeLimit.toNanos();
            for (Future<?> reader : readers) {
                reader.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (TimeoutException e) {
            throw new AssertionError(
                    "the soak ran past its time limit of " + timeLimit + " (seed " + seed
                            + "): a read hangs, or the machine is too slow for " + reads + " reads",
                    e);
        } catch (ExecutionException e) {
            throw new AssertionError("a reader died (seed " + seed + ")", e.getCause());
        } finally {
            stop.set(true);
            pool.shutdownNow();
            if (!pool.awaitTermination(CLOSE_GRACE.toSeconds(), TimeUnit.SECONDS)) {
                tally.fail("reader threads still running " + CLOSE_GRACE + " after they were interrupted");
            }
        }
    }

    private SoakObject upload(S3Client s3, String name, byte[] content) {
        return new SoakObject(new S3Location(bucket(), key(name)), content, put(s3, name, content));
    }

    private static Map<Fault, Long> faultsSince(Map<Fault, Long> before, Map<Fault, Long> now) {
        Map<Fault, Long> since = new EnumMap<>(Fault.class);
        for (Fault fault : Fault.values()) {
            since.put(fault, now.getOrDefault(fault, 0L) - before.getOrDefault(fault, 0L));
        }
        return since;
    }

    private void print(Map<String, String> lines) {
        StringBuilder block = new StringBuilder();
        block.append("---- fault soak, ")
                .append(getClass().getSimpleName())
                .append(", seed ")
                .append(seed)
                .append(", ")
                .append(threads)
                .append(" threads, ")
                .append(reads)
                .append(" reads ----\n");
        lines.forEach((label, value) -> block.append(String.format("%-22s %s%n", label, value)));
        System.out.print(block.append("----\n"));
    }

    private static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }
}
