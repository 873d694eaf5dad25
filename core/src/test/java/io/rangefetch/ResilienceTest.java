package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.HEDGE_ENABLED;
import static io.rangefetch.StreamConfig.HEDGE_MAX_FRACTION;
import static io.rangefetch.StreamConfig.HEDGE_MIN_DELAY;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.READ_DEADLINE;
import static io.rangefetch.StreamConfig.RETRY_BASE_DELAY;
import static io.rangefetch.StreamConfig.RETRY_BETWEEN_BYTES_TIMEOUT;
import static io.rangefetch.StreamConfig.RETRY_FIRST_BYTE_TIMEOUT;
import static io.rangefetch.StreamConfig.RETRY_MAX_ATTEMPTS;
import static io.rangefetch.StreamConfig.RETRY_MAX_DELAY;
import static io.rangefetch.StreamConfig.THROTTLE_ENABLED;
import static io.rangefetch.StreamConfig.THROTTLE_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.THROTTLE_MIN_CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.ManualTime;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a stream does when S3 is slow rather than failing: an answer that does not begin is given up at the
 * first-byte timeout and sent again, or hedged; a body that stalls is cut by the watchdog and resumed; a read that
 * waits past {@code read.deadline} fails saying for what, how many attempts were made and why; 503s lower the
 * bucket's governor limit, and the statistics show all of it. Slowness is a held request or body, never a sleep,
 * and time is a {@link ManualTime} the test moves: a timeout, a hedge's delay, a backoff or a deadline happens when
 * the test moves time past it, once the library has set it, and nothing asserts how long anything took.
 */
@Timeout(60)
class ResilienceTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final int KIB = 1024;
    /** Above read.small-object-size: each read below sends one GET of its own. */
    private static final int SIZE = 20 * MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final ExecutorService readers = Executors.newCachedThreadPool();
    private final ManualTime time = new ManualTime();

    @AfterEach
    void stopReaders() throws InterruptedException {
        readers.shutdownNow();
        assertThat(readers.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }

    private final InMemoryObjectClient client = fixture.client();

    private static StreamConfig.Builder quick() {
        return patient().set(RETRY_BASE_DELAY, Duration.ofMillis(1)).set(RETRY_MAX_DELAY, Duration.ofMillis(5));
    }

    private static StreamConfig.Builder patient() {
        return StreamConfig.builder().set(CACHE_MAX_MEMORY, 64L * MIB).set(PREFETCH_MAX_SIZE, 0);
    }

    private OpenOptions known(String key) {
        return OpenOptions.builder().length(SIZE).etag(client.etag(BUCKET, key)).build();
    }

    /** A GET held before it answers: {@code reached} opens once it is held, {@code release} lets it answer. */
    private record HeldGet(CountDownLatch reached, CountDownLatch release) {
        /** Waits until the GET is held: a hedge or a retry sent after this cannot overtake it to the client. */
        void awaitReached() throws InterruptedException {
            assertThat(reached.await(20, TimeUnit.SECONDS))
                    .as("the GET reached the client")
                    .isTrue();
        }
    }

    /**
     * Holds the first GET of the bytes at {@code position} before it answers (its head, not its body) until the
     * returned hold is released: that one, not whatever GET comes first (a prefetch the last stream left behind).
     */
    private HeldGet holdFirstGetAt(long position) {
        HeldGet held = new HeldGet(new CountDownLatch(1), new CountDownLatch(1));
        AtomicInteger gets = new AtomicInteger();
        client.addFault(request -> {
            if (request.isGet() && request.byteRange().contains(position) && gets.incrementAndGet() == 1) {
                held.reached().countDown();
                try {
                    held.release().await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        return held;
    }

    /** Runs {@code read} on a reader thread, so that the test can move time while it waits. */
    private CompletableFuture<Void> reading(ThrowingRunnable read) {
        return CompletableFuture.runAsync(
                () -> {
                    try {
                        read.run();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                },
                readers);
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws IOException;
    }

    private static byte[] slice(byte[] data, long from, int length) {
        return Arrays.copyOfRange(data, (int) from, (int) from + length);
    }

    @Test
    void anAnswerThatDoesNotBeginIsGivenUpAtTheFirstByteTimeoutAndSentAgain() throws Exception {
        byte[] data = fixture.put("silent", SIZE);
        StreamFactory factory = fixture.factory(
                quick().set(HEDGE_ENABLED, false)
                        .set(RETRY_FIRST_BYTE_TIMEOUT, Duration.ofMillis(100))
                        .build(),
                time);
        HeldGet answer = holdFirstGetAt(MIB);
        byte[] bytes = new byte[64 * KIB];
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "silent"), known("silent"))) {
            CompletableFuture<Void> read = reading(() -> stream.readFully(MIB, bytes, 0, bytes.length));
            answer.awaitReached();
            time.awaitTaskWithin(Duration.ofMillis(100)); // the GET was sent and its first-byte timeout set
            time.advance(Duration.ofMillis(100)); // given up: retried after a backoff of at most 5 ms
            time.advanceUntilDone(Duration.ofMillis(5), read);
            read.get(20, TimeUnit.SECONDS);
            assertThat(stream.statistics().retries()).isEqualTo(1);
            assertThat(stream.statistics().hedgesSent()).isZero();
        } finally {
            answer.release().countDown();
        }
        assertThat(bytes).isEqualTo(slice(data, MIB, bytes.length));
        assertThat(client.gets())
                .hasSize(2)
                .allSatisfy(get -> assertThat(get.range()).isEqualTo("bytes=1048576-1114111"));
    }

    @Test
    void aGetSlowToBeginIsHedgedAndTheHedgesAnswerIsRead() throws Exception {
        byte[] data = fixture.put("slow", SIZE);
        StreamFactory factory = fixture.factory(
                quick().set(HEDGE_MIN_DELAY, Duration.ofMillis(20))
                        .set(HEDGE_MAX_FRACTION, 0.5)
                        .set(RETRY_FIRST_BYTE_TIMEOUT, Duration.ZERO)
                        .build(),
                time);
        // warm up: no GET is hedged before its size class has 16 first-byte latencies to call it slow against
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "slow"), known("slow"))) {
            for (int i = 0; i < 16; i++) {
                stream.readFully(i * 256L * KIB, new byte[KIB], 0, KIB);
            }
            assertThat(stream.statistics().getRequests()).isEqualTo(16);
        }
        client.clearLog();
        HeldGet answer = holdFirstGetAt(4L * MIB);
        byte[] bytes = new byte[64 * KIB];
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "slow"), known("slow"))) {
            CompletableFuture<Void> read = reading(() -> stream.readFully(4L * MIB, bytes, 0, bytes.length));
            answer.awaitReached(); // before the hedge can be sent: so the held GET is the first one
            // the warm-up's latencies took no time, so the hedge is due at the least delay
            time.awaitTaskWithin(Duration.ofMillis(20));
            time.advance(Duration.ofMillis(20));
            read.get(20, TimeUnit.SECONDS);
            StreamStatistics statistics = stream.statistics();
            assertThat(statistics.hedgesSent()).isEqualTo(1);
            assertThat(statistics.hedgesWon()).isEqualTo(1);
            assertThat(statistics.retries()).isZero();
            assertThat(statistics.getRequests()).as("the GET and its hedge").isEqualTo(2);
        } finally {
            answer.release().countDown();
        }
        assertThat(bytes).isEqualTo(slice(data, 4L * MIB, bytes.length));
        assertThat(client.gets()).hasSize(2);
        assertThat(factory.statistics().hedgesSent()).isEqualTo(1);
    }

    @Test
    void aBodyThatStallsIsCutByTheWatchdogAndResumed() throws Exception {
        byte[] data = fixture.put("stalled", SIZE);
        String etag = client.etag(BUCKET, "stalled");
        StreamFactory factory = fixture.factory(
                quick().set(RETRY_BETWEEN_BYTES_TIMEOUT, Duration.ofMillis(100)).build(), time);
        AtomicInteger gets = new AtomicInteger();
        BodyHold hold = client.holdBodies(request -> request.isGet() && gets.incrementAndGet() == 1);
        byte[] bytes = new byte[256 * KIB];
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "stalled"), known("stalled"))) {
            CompletableFuture<Void> read = reading(() -> stream.readFully(2L * MIB, bytes, 0, bytes.length));
            assertThat(hold.awaitHeld(1)).as("the body stalls").isTrue();
            // its reader watches it, checked every 25 ms: the check after 100 ms without a byte cuts it
            time.awaitTaskWithin(Duration.ofMillis(25));
            time.advance(Duration.ofMillis(125));
            time.advanceUntilDone(Duration.ofMillis(5), read); // the backoff before the resumed GET
            read.get(20, TimeUnit.SECONDS);
            assertThat(stream.statistics().resumes()).isEqualTo(1);
        } finally {
            hold.release();
        }
        assertThat(bytes).isEqualTo(slice(data, 2L * MIB, bytes.length));
        assertThat(hold.closedWhileHeld()).as("the stalled body was cut").isEqualTo(1);
        assertThat(client.gets()).hasSize(2);
        assertThat(client.gets().get(1).ifMatch()).isEqualTo(etag);
        assertThat(client.gets().get(1).range()).isEqualTo(client.gets().get(0).range());
    }

    @Test
    void aReadPastItsDeadlineFailsNamingTheObjectTheRangeTheAttemptsAndWhy() throws Exception {
        fixture.put("throttled", SIZE);
        StreamFactory factory = fixture.factory(
                patient()
                        .set(READ_DEADLINE, Duration.ofMillis(300))
                        .set(RETRY_MAX_ATTEMPTS, 100)
                        .set(RETRY_BASE_DELAY, Duration.ofMillis(20))
                        .set(RETRY_MAX_DELAY, Duration.ofMillis(20))
                        .build(),
                time);
        client.addFault(InMemoryObjectClient.failWhen(
                request -> request.isGet(),
                new HttpStatusException("GET s3://bucket/throttled: HTTP 503 SlowDown", 503, null)));
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "throttled"), known("throttled"))) {
            CompletableFuture<Void> read = reading(() -> stream.readFully(MIB, new byte[KIB], 0, KIB));
            // from backoff to backoff (at most 20 ms each) until the read's deadline, 300 ms on, is the next due
            time.advanceUntilDone(Duration.ofMillis(20), read);
            assertThatThrownBy(() -> read.get(20, TimeUnit.SECONDS))
                    .cause()
                    .cause()
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("s3://bucket/throttled")
                    .hasMessageContaining("read.deadline")
                    .hasMessageContaining("1048576")
                    .hasMessageContaining("attempts so far")
                    .hasMessageContaining("503");
        }
        fixture.awaitQuiet(); // the GET nobody waits for any more is stopped
        assertThat(factory.statistics().throttledResponses()).isPositive();
    }

    @Test
    void slowDownAnswersLowerTheBucketsGovernorLimitAndShowInTheStatistics() throws Exception {
        byte[] data = fixture.put("busy", SIZE);
        StreamFactory factory = fixture.factory(quick().build(), time);
        AtomicInteger left = new AtomicInteger(3);
        client.addFault(request -> {
            if (request.isGet() && left.getAndDecrement() > 0) {
                throw new HttpStatusException("GET s3://bucket/busy: HTTP 503 SlowDown", 503, null);
            }
        });
        byte[] bytes = new byte[KIB];
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "busy"), known("busy"))) {
            assertThat(stream.statistics().throttleLimit())
                    .as("no request sent yet")
                    .isEqualTo(-1);
            CompletableFuture<Void> read = reading(() -> stream.readFully(3L * MIB, bytes, 0, KIB));
            time.advanceUntilDone(Duration.ofMillis(5), read); // the three backoffs, of at most 5 ms
            read.get(20, TimeUnit.SECONDS);
            StreamStatistics statistics = stream.statistics();
            assertThat(statistics.throttledResponses()).isEqualTo(3);
            assertThat(statistics.retries()).isEqualTo(3);
            // 16 (the fetch concurrency) halved by each 503, each sent after the previous decrease, down to the floor
            assertThat(statistics.throttleLimit()).isEqualTo(2);
        }
        assertThat(bytes).isEqualTo(slice(data, 3L * MIB, KIB));
        assertThat(factory.statistics().throttleLimit()).isEqualTo(2);

        StreamFactory ungoverned =
                fixture.factory(quick().set(THROTTLE_ENABLED, false).build(), time);
        try (SeekableS3InputStream stream = ungoverned.open(new S3Location(BUCKET, "busy"), known("busy"))) {
            stream.readFully(3L * MIB, bytes, 0, KIB);
            assertThat(stream.statistics().throttleLimit()).isEqualTo(-1);
        }
    }

    @Test
    void closingTheFactoryStopsItsExchangeAndWatchdogThreads() throws Exception {
        fixture.put("threads", SIZE);
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        StreamFactory factory = StreamFactory.builder(client)
                .config(quick().set(RETRY_BETWEEN_BYTES_TIMEOUT, Duration.ofMillis(50))
                        .build())
                .build();
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "threads"), known("threads"))) {
            stream.readFully(MIB, new byte[KIB], 0, KIB);
        }
        assertThat(newThreads(before))
                .as("the factory's threads while it is open")
                .anySatisfy(name -> assertThat(name).startsWith("rangefetch-exchange-"))
                .anySatisfy(name -> assertThat(name).startsWith("rangefetch-timer-"));
        factory.close();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (!before.contains(thread) && thread.getName().startsWith("rangefetch-")) {
                thread.join(TimeUnit.SECONDS.toMillis(10)); // ended its work at close; let it finish exiting
            }
        }
        assertThat(newThreads(before)).as("threads left after close").isEmpty();
    }

    private static List<String> newThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> !before.contains(thread) && thread.isAlive())
                .map(Thread::getName)
                .filter(name -> name.startsWith("rangefetch-"))
                .toList();
    }

    @Test
    void aPrefetchWithNoPlaceUnderTheGovernorIsDroppedAndAReaderFetchesItsBytesOnDemand() throws Exception {
        byte[] data = fixture.put("crowded", SIZE);
        StreamFactory factory = fixture.factory(quick().set(HEDGE_ENABLED, false)
                .set(FETCH_MAX_CONCURRENCY, 2)
                .set(THROTTLE_MIN_CONCURRENCY, 1)
                .set(THROTTLE_MAX_CONCURRENCY, 1)
                .build());
        AtomicInteger gets = new AtomicInteger();
        BodyHold hold = client.holdBodies(request -> request.isGet() && gets.incrementAndGet() == 1);
        try (SeekableS3InputStream busy = factory.open(new S3Location(BUCKET, "crowded"), known("crowded"));
                SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "crowded"), known("crowded"))) {
            CompletableFuture<Void> demand = CompletableFuture.runAsync(
                    () -> {
                        try {
                            busy.readFully(0, new byte[KIB], 0, KIB);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    },
                    readers);
            assertThat(hold.awaitHeld(1))
                    .as("the only place is taken by a demand GET")
                    .isTrue();

            stream.prefetch(List.of(new ByteRange(10L * MIB, 10L * MIB + 256 * KIB)));
            fixture.awaitQuietExcept(1); // the prefetch ran, found no place and was dropped
            assertThat(client.gets()).as("the dropped prefetch sent nothing").hasSize(1);

            hold.release();
            demand.get(20, TimeUnit.SECONDS);
            FileRange range = FileRange.of(10L * MIB, 256 * KIB);
            stream.readVectored(List.of(range), ByteBuffer::allocate);
            ByteBuffer buffer = range.data().get(20, TimeUnit.SECONDS);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            assertThat(bytes).isEqualTo(slice(data, 10L * MIB, 256 * KIB));
        } finally {
            hold.release();
        }
    }
}
