package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.METADATA_TTL;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.RETRY_BASE_DELAY;
import static io.rangefetch.StreamConfig.RETRY_MAX_ATTEMPTS;
import static io.rangefetch.StreamConfig.RETRY_MAX_DELAY;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_PART_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static io.rangefetch.StreamConfig.THROTTLE_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.THROTTLE_MIN_CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.GatedObjectClient;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.TestData;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Randomized schedules of streaming, positioned (some at one stride, which prefetches), tail, length and vectored
 * reads from several threads on shared
 * streams, while the object is overwritten, response bodies are let through in an order the seed picks (every
 * body waits at a gate: see {@link GatedObjectClient}), some GETs are answered 503 and retried after a backoff
 * their fetch waits out off its slot, the budget is tiny and fetch slots are few. Checked on
 * every schedule:
 * <ul>
 *   <li>every buffer a read returns holds bytes of one version, and a stream never returns bytes (or an end of
 *       file, or a length) of two versions: it fails with {@link ObjectChangedException} instead;</li>
 *   <li>no GET asks for more than {@code read.max-request-size};</li>
 *   <li>cached plus in-flight bytes never exceed the budget (the cache's own peak, and a sample at every step);</li>
 *   <li>every read ends, with bytes or a documented exception, within a deadline;</li>
 *   <li>once everything is closed, no bytes are reserved and no fetch thread is left.</li>
 * </ul>
 * The seed of a failing schedule is in the failure's message; rerun just it with
 * {@code -Drangefetch.seed=SEED -Drangefetch.schedules=1}. Bounded in count ({@code rangefetch.schedules},
 * 2,000 by default) and in time (every wait has a deadline).
 */
class RandomizedConcurrencyTest {
    private static final int SCHEDULES = Integer.getInteger("rangefetch.schedules", 2000);
    private static final long FIRST_SEED = Long.getLong("rangefetch.seed", System.nanoTime());
    private static final long OPERATION_DEADLINE_SECONDS = 30;
    private static final int KIB = 1024;
    private static final String BUCKET = "bucket";
    private static final String KEY = "model.bin";

    private static ExecutorService readers;

    @BeforeAll
    static void startReaders() {
        readers = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "model-reader");
            thread.setDaemon(true);
            return thread;
        });
    }

    @AfterAll
    static void stopReaders() throws InterruptedException {
        readers.shutdownNow();
        assertThat(readers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void everyScheduleKeepsEveryPromise() throws Exception {
        // an exception that escapes a Rangefetch thread breaks a promise even when every read still ends well (a
        // completion task it skipped, a task it ran twice): the JVM would only print it
        Queue<Throwable> escaped = new ConcurrentLinkedQueue<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
            if (thread.getName().startsWith("rangefetch-")) {
                escaped.add(new AssertionError("escaped " + thread.getName(), failure));
            }
            if (before != null) {
                before.uncaughtException(thread, failure);
            }
        });
        try {
            for (int i = 0; i < SCHEDULES; i++) {
                long seed = FIRST_SEED + i;
                try {
                    new Schedule(seed).run();
                    Throwable first = escaped.peek();
                    if (first != null) {
                        throw new AssertionError("an exception escaped a Rangefetch thread", first);
                    }
                } catch (AssertionError | Exception e) {
                    throw new AssertionError(
                            "Schedule with seed " + seed + " failed (rerun with -Drangefetch.seed=" + seed
                                    + " -Drangefetch.schedules=1): " + e.getMessage(),
                            e);
                }
            }
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    /**
     * What one stream handed out: the versions its bytes belong to (where only one version has them), the lengths
     * it told, and the ends of file it reported (each says its version is shorter than some offset).
     */
    private static final class Seen {
        private final Set<Integer> versions = ConcurrentHashMap.newKeySet();
        private final List<Long> lengths = new CopyOnWriteArrayList<>();
        private final List<Long> shorterThan = new CopyOnWriteArrayList<>();

        void add(int version) {
            if (version >= 0) {
                versions.add(version);
            }
        }

        /** Everything it handed out fits one version. */
        void check(List<byte[]> all, int stream) {
            assertThat(versions)
                    .as("versions whose bytes stream %d handed out", stream)
                    .hasSizeLessThanOrEqualTo(1);
            assertThat(lengths.stream().distinct())
                    .as("lengths stream %d told", stream)
                    .hasSizeLessThanOrEqualTo(1);
            if (!versions.isEmpty()) {
                long length = all.get(versions.iterator().next()).length;
                assertThat(lengths).as("lengths stream %d told", stream).allMatch(told -> told == length);
                assertThat(shorterThan)
                        .as("ends of file stream %d reported", stream)
                        .allMatch(end -> length < end);
            }
        }
    }

    private static final class Schedule {
        private final long seed;
        private final SplittableRandom random;
        private final List<byte[]> versions = new CopyOnWriteArrayList<>();
        private final InMemoryObjectClient store = new InMemoryObjectClient();
        private final GatedObjectClient client = new GatedObjectClient(store);
        private final long budget;
        private final long maxRequest;
        private final List<String> failures = new CopyOnWriteArrayList<>();

        Schedule(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            this.budget = (64L + random.nextInt(8) * 64) * KIB;
            this.maxRequest = 32L * KIB << random.nextInt(3);
        }

        private byte[] newVersion() {
            int length = random.nextInt(10) == 0 ? 0 : 16 * KIB + random.nextInt(600 * KIB);
            byte[] data = TestData.bytes(length, random.nextLong());
            versions.add(data);
            store.put(BUCKET, KEY, data);
            return data;
        }

        /**
         * In a third of the schedules, a share of the GETs (10 to 40%) is answered 503 SlowDown before any body:
         * block loads and prefetches back off and are run again by the scheduler, while the gates decide the rest.
         * Which GETs is decided by the seed and the order GETs arrive in; 20 503s in a row, which would exhaust a
         * GET's retries, do not happen at these shares.
         */
        private void slowDowns() {
            int percent = random.nextInt(3) == 0 ? 10 + random.nextInt(31) : 0;
            if (percent == 0) {
                return;
            }
            SplittableRandom decide = random.split();
            store.addFault(request -> {
                boolean slowDown;
                synchronized (decide) {
                    slowDown = request.isGet() && decide.nextInt(100) < percent;
                }
                if (slowDown) {
                    throw new HttpStatusException(
                            "GET s3://" + request.bucket() + "/" + request.key() + " " + request.range()
                                    + " failed with HTTP 503 SlowDown",
                            503,
                            null);
                }
            });
        }

        void run() throws Exception {
            newVersion();
            StreamConfig config = StreamConfig.builder()
                    .set(CACHE_MAX_MEMORY, budget)
                    .set(FETCH_MAX_CONCURRENCY, 1 + random.nextInt(3))
                    .set(MIN_REQUEST_SIZE, 8 * KIB)
                    .set(MAX_REQUEST_SIZE, maxRequest)
                    .set(SMALL_OBJECT_SIZE, random.nextBoolean() ? 0 : 64L * KIB)
                    .set(SMALL_OBJECT_PART_SIZE, 16 * KIB)
                    .set(PREFETCH_INITIAL_SIZE, 16 * KIB)
                    .set(PREFETCH_MAX_SIZE, random.nextBoolean() ? 0 : 128 * KIB)
                    .set(METADATA_TTL, java.time.Duration.ofMinutes(5))
                    // a governor limit below the fetch concurrency: prefetches are shed, demand GETs wait for places
                    .set(THROTTLE_MIN_CONCURRENCY, 1)
                    .set(THROTTLE_MAX_CONCURRENCY, 1 + random.nextInt(3))
                    // retries wait out their backoff off their fetch slot and run again (see slowDowns below)
                    .set(RETRY_MAX_ATTEMPTS, 4)
                    .set(RETRY_BASE_DELAY, java.time.Duration.ofMillis(1))
                    .set(RETRY_MAX_DELAY, java.time.Duration.ofMillis(3))
                    .build();
            slowDowns();
            Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
            StreamFactory factory = StreamFactory.builder(client)
                    .config(config)
                    .formatPolicies(List.of())
                    .build();
            if (random.nextBoolean()) {
                // the factory learns the version first (a HEAD: no body to gate), so the streams open knowing it,
                // and may find it stale once the object is overwritten
                try (SeekableS3InputStream learner = factory.open(new S3Location(BUCKET, KEY))) {
                    learner.length();
                }
            }
            List<SeekableS3InputStream> streams = new ArrayList<>();
            List<Seen> seen = new ArrayList<>();
            int streamCount = 1 + random.nextInt(2);
            for (int i = 0; i < streamCount; i++) {
                streams.add(factory.open(new S3Location(BUCKET, KEY)));
                seen.add(new Seen());
            }
            List<Future<?>> operations = new ArrayList<>();
            int threads = 2 + random.nextInt(3);
            AtomicInteger running = new AtomicInteger(threads);
            for (int t = 0; t < threads; t++) {
                long threadSeed = random.nextLong();
                operations.add(readers.submit(() -> {
                    try {
                        SplittableRandom own = new SplittableRandom(threadSeed);
                        int count = 1 + own.nextInt(3);
                        for (int op = 0; op < count; op++) {
                            int which = own.nextInt(streams.size());
                            operate(own, streams.get(which), seen.get(which));
                        }
                    } finally {
                        running.decrementAndGet();
                    }
                    return null;
                }));
            }
            drive(factory, running);
            for (Future<?> operation : operations) {
                try {
                    operation.get(OPERATION_DEADLINE_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    client.openAll();
                    throw new AssertionError("A read did not end within " + OPERATION_DEADLINE_SECONDS + " s");
                }
            }
            streams.forEach(SeekableS3InputStream::close);
            assertThat(factory.peakCacheMemoryBytes()).as("peak cache bytes").isLessThanOrEqualTo(budget);
            factory.close();
            assertThat(failures).as("failures").isEmpty();
            assertThat(client.largestGet()).as("largest GET").isLessThanOrEqualTo(maxRequest);
            for (int i = 0; i < seen.size(); i++) {
                seen.get(i).check(versions, i);
            }
            assertThat(factory.cacheMemoryBytes())
                    .as("bytes reserved after close")
                    .isZero();
            assertThat(fetchThreadsLeft(threadsBefore))
                    .as("fetch threads left after close")
                    .isEmpty();
        }

        /**
         * Lets bodies through in the seed's order, overwrites the object now and then, and samples the budget,
         * until every reader is done; then lets everything through.
         */
        private void drive(StreamFactory factory, AtomicInteger running) throws Exception {
            int overwrites = random.nextInt(3);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(OPERATION_DEADLINE_SECONDS);
            while (running.get() > 0 && System.nanoTime() < deadline) {
                if (factory.cacheMemoryBytes() > budget) {
                    failures.add("cache held " + factory.cacheMemoryBytes() + " bytes, over the budget " + budget);
                }
                if (overwrites > 0 && random.nextInt(4) == 0) {
                    overwrites--;
                    newVersion();
                    continue;
                }
                client.openOne(random, 5);
            }
            client.openAll();
        }

        /** One random operation on {@code stream}; records what it handed out. */
        private void operate(SplittableRandom own, SeekableS3InputStream stream, Seen seen) {
            int kind = own.nextInt(6);
            long span = versions.get(0).length + 64L * KIB;
            long position = own.nextLong(span);
            int length = 16 + own.nextInt(96 * KIB);
            try {
                switch (kind) {
                    case 0 -> readFullyAt(stream, seen, position, length);
                    case 1 -> {
                        byte[] buffer = new byte[length];
                        long at;
                        int read;
                        synchronized (stream) { // seek and read as one: the position is the stream's
                            stream.seek(position);
                            at = stream.getPos();
                            read = stream.read(buffer, 0, length);
                        }
                        if (read < 0) {
                            seen.shorterThan.add(at + 1);
                        } else {
                            seen.add(versionOf(at, buffer, read));
                        }
                    }
                    case 2 -> {
                        byte[] buffer = new byte[length];
                        int read = stream.readTail(buffer, 0, length);
                        seen.add(versionOfTail(buffer, read, length));
                    }
                    case 3 -> seen.lengths.add(stream.length());
                    case 4 -> strided(own, stream, seen, position, length);
                    default -> vectored(own, stream, seen, position, length);
                }
            } catch (ObjectChangedException e) {
                // a documented end: the stream will not mix versions
            } catch (EOFException e) {
                // a seek past the end the stream knows: no bytes handed out
            } catch (IOException e) {
                if (!String.valueOf(e.getMessage()).contains("closed")) {
                    failures.add("undocumented failure: " + e);
                }
            } catch (RuntimeException e) {
                failures.add("unchecked failure: " + e);
            }
        }

        /** Positioned reads one stride apart, enough of them that the stride pattern prefetches the next ones. */
        private void strided(SplittableRandom own, SeekableS3InputStream stream, Seen seen, long position, int length)
                throws IOException {
            int size = 1 + length / 8;
            long stride = size + own.nextInt(16 * KIB);
            for (int i = 0; i < 3 + own.nextInt(4); i++) {
                if (!readFullyAt(stream, seen, position + i * stride, size)) {
                    return;
                }
            }
        }

        /** A positioned read; records what it handed out; {@code false} when it met the end of file. */
        private boolean readFullyAt(SeekableS3InputStream stream, Seen seen, long position, int length)
                throws IOException {
            byte[] buffer = new byte[length];
            try {
                stream.readFully(position, buffer, 0, length);
            } catch (EOFException e) {
                seen.shorterThan.add(position + length);
                return false;
            }
            seen.add(versionOf(position, buffer, length));
            return true;
        }

        private void vectored(SplittableRandom own, SeekableS3InputStream stream, Seen seen, long position, int length)
                throws IOException {
            long known = stream.length();
            seen.lengths.add(known);
            if (known < 32) {
                return;
            }
            List<FileRange> ranges = new ArrayList<>();
            long cursor = own.nextLong(known / 2);
            for (int i = 0; i < 1 + own.nextInt(3) && cursor + 16 < known; i++) {
                int size = (int) Math.min(known - cursor, 16 + own.nextInt(length));
                ranges.add(FileRange.of(cursor, size));
                cursor += size + own.nextInt(32 * KIB);
            }
            stream.readVectored(ranges, ByteBuffer::allocate);
            for (FileRange range : ranges) {
                try {
                    ByteBuffer bytes = range.data().get(OPERATION_DEADLINE_SECONDS, TimeUnit.SECONDS);
                    byte[] copy = new byte[bytes.remaining()];
                    bytes.get(copy);
                    seen.add(versionOf(range.offset(), copy, range.length()));
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof ObjectChangedException)) {
                        failures.add("vectored range failed with " + e.getCause());
                    }
                } catch (InterruptedException | TimeoutException e) {
                    failures.add("vectored range did not complete: " + e);
                }
            }
        }

        /**
         * The one version whose bytes these are; -1 (nothing learned) when several versions have them (a read of a
         * byte or two); a failure is recorded when none has them.
         */
        private int versionOf(long position, byte[] buffer, int length) {
            List<Integer> matching = new ArrayList<>();
            for (int v = 0; v < versions.size(); v++) {
                byte[] data = versions.get(v);
                if (position + length <= data.length
                        && Arrays.equals(buffer, 0, length, data, (int) position, (int) position + length)) {
                    matching.add(v);
                }
            }
            if (matching.isEmpty()) {
                failures.add(length + " bytes at " + position + " belong to no single version");
            }
            return matching.size() == 1 ? matching.get(0) : -1;
        }

        private int versionOfTail(byte[] buffer, int read, int asked) {
            List<Integer> matching = new ArrayList<>();
            for (int v = 0; v < versions.size(); v++) {
                byte[] data = versions.get(v);
                if (read == Math.min(asked, data.length)
                        && Arrays.equals(buffer, 0, read, data, data.length - read, data.length)) {
                    matching.add(v);
                }
            }
            if (matching.isEmpty()) {
                failures.add("a tail of " + read + " bytes belongs to no version");
            }
            return matching.size() == 1 ? matching.get(0) : -1;
        }
    }

    /** Fetch threads started since {@code before} that are still alive once given a moment to end. */
    private static List<Thread> fetchThreadsLeft(Set<Thread> before) throws InterruptedException {
        List<Thread> left = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (!before.contains(thread) && thread.getName().startsWith("rangefetch-fetch-")) {
                thread.join(TimeUnit.SECONDS.toMillis(5)); // a worker may still be leaving its run loop
                if (thread.isAlive()) {
                    left.add(thread);
                }
            }
        }
        return left;
    }
}
