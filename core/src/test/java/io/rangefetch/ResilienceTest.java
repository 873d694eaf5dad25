package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.HttpStatusException;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a stream does when S3 is slow rather than failing: an answer that does not begin is given up at the
 * first-byte timeout and sent again, or hedged; a body that stalls is cut by the watchdog and resumed; a read that
 * waits past {@code read.deadline} fails saying for what, how many attempts were made and why; 503s lower the
 * bucket's governor limit, and the statistics show all of it. Slowness is a held request or body, never a sleep;
 * the timeouts are short so that the tests end soon, and nothing asserts how long anything took.
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
    private final InMemoryObjectClient client = fixture.client();

    private static StreamConfig.Builder quick() {
        return patient().retryBaseDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(5));
    }

    private static StreamConfig.Builder patient() {
        return StreamConfig.builder().cacheMaxMemory(64L * MIB).prefetchMaxSize(0);
    }

    private OpenOptions known(String key) {
        return OpenOptions.builder().length(SIZE).etag(client.etag(BUCKET, key)).build();
    }

    /** Holds the first GET before it answers (its head, not its body) until the returned latch opens. */
    private CountDownLatch holdFirstGet() {
        CountDownLatch answer = new CountDownLatch(1);
        AtomicInteger gets = new AtomicInteger();
        client.addFault(request -> {
            if (request.isGet() && gets.incrementAndGet() == 1) {
                try {
                    answer.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        return answer;
    }

    private static byte[] slice(byte[] data, long from, int length) {
        return Arrays.copyOfRange(data, (int) from, (int) from + length);
    }

    @Test
    void anAnswerThatDoesNotBeginIsGivenUpAtTheFirstByteTimeoutAndSentAgain() throws Exception {
        byte[] data = fixture.put("silent", SIZE);
        StreamFactory factory = fixture.factory(quick().hedgeEnabled(false)
                .retryFirstByteTimeout(Duration.ofMillis(100)).build());
        CountDownLatch answer = holdFirstGet();
        byte[] bytes = new byte[64 * KIB];
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "silent"), known("silent"))) {
            stream.readFully(MIB, bytes, 0, bytes.length);
            assertThat(stream.statistics().retries()).isEqualTo(1);
            assertThat(stream.statistics().hedgesSent()).isZero();
        } finally {
            answer.countDown();
        }
        assertThat(bytes).isEqualTo(slice(data, MIB, bytes.length));
        assertThat(client.gets()).hasSize(2).allSatisfy(get -> assertThat(get.range()).isEqualTo("bytes=1048576-1114111"));
    }

    @Test
    void aGetSlowToBeginIsHedgedAndTheHedgesAnswerIsRead() throws Exception {
        byte[] data = fixture.put("slow", SIZE);
        StreamFactory factory = fixture.factory(quick().hedgeMinDelay(Duration.ofMillis(20)).hedgeMaxFraction(0.5)
                .retryFirstByteTimeout(Duration.ZERO).build());
        // warm up: a hedge may be at most half the GETs sent, so send one unhedged GET first
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "slow"), known("slow"))) {
            stream.readFully(0, new byte[KIB], 0, KIB);
        }
        client.clearLog();
        CountDownLatch answer = holdFirstGet();
        byte[] bytes = new byte[64 * KIB];
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "slow"), known("slow"))) {
            stream.readFully(4L * MIB, bytes, 0, bytes.length);
            StreamStatistics statistics = stream.statistics();
            assertThat(statistics.hedgesSent()).isEqualTo(1);
            assertThat(statistics.hedgesWon()).isEqualTo(1);
            assertThat(statistics.retries()).isZero();
            assertThat(statistics.getRequests()).as("the GET and its hedge").isEqualTo(2);
        } finally {
            answer.countDown();
        }
        assertThat(bytes).isEqualTo(slice(data, 4L * MIB, bytes.length));
        assertThat(client.gets()).hasSize(2);
        assertThat(factory.statistics().hedgesSent()).isEqualTo(1);
    }

    @Test
    void aBodyThatStallsIsCutByTheWatchdogAndResumed() throws Exception {
        byte[] data = fixture.put("stalled", SIZE);
        String etag = client.etag(BUCKET, "stalled");
        StreamFactory factory = fixture.factory(quick().retryBetweenBytesTimeout(Duration.ofMillis(100)).build());
        AtomicInteger gets = new AtomicInteger();
        BodyHold hold = client.holdBodies(request -> request.isGet() && gets.incrementAndGet() == 1);
        byte[] bytes = new byte[256 * KIB];
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "stalled"), known("stalled"))) {
            stream.readFully(2L * MIB, bytes, 0, bytes.length);
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
        StreamFactory factory = fixture.factory(patient().readDeadline(Duration.ofMillis(300)).retryMaxAttempts(100)
                .retryBaseDelay(Duration.ofMillis(20)).retryMaxDelay(Duration.ofMillis(20)).build());
        client.addFault(InMemoryObjectClient.failWhen(request -> request.isGet(),
                new HttpStatusException("GET s3://bucket/throttled: HTTP 503 SlowDown", 503, null)));
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "throttled"), known("throttled"))) {
            assertThatThrownBy(() -> stream.readFully(MIB, new byte[KIB], 0, KIB))
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
        StreamFactory factory = fixture.factory(quick().build());
        AtomicInteger left = new AtomicInteger(3);
        client.addFault(request -> {
            if (request.isGet() && left.getAndDecrement() > 0) {
                throw new HttpStatusException("GET s3://bucket/busy: HTTP 503 SlowDown", 503, null);
            }
        });
        byte[] bytes = new byte[KIB];
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "busy"), known("busy"))) {
            assertThat(stream.statistics().throttleLimit()).as("no request sent yet").isEqualTo(-1);
            stream.readFully(3L * MIB, bytes, 0, KIB);
            StreamStatistics statistics = stream.statistics();
            assertThat(statistics.throttledResponses()).isEqualTo(3);
            assertThat(statistics.retries()).isEqualTo(3);
            // 16 (the fetch concurrency) halved by each 503, each sent after the previous decrease, down to the floor
            assertThat(statistics.throttleLimit()).isEqualTo(2);
        }
        assertThat(bytes).isEqualTo(slice(data, 3L * MIB, KIB));
        assertThat(factory.statistics().throttleLimit()).isEqualTo(2);

        StreamFactory ungoverned = fixture.factory(quick().throttleEnabled(false).build());
        try (SeekableS3InputStream stream = ungoverned.open(new S3Location(BUCKET, "busy"), known("busy"))) {
            stream.readFully(3L * MIB, bytes, 0, KIB);
            assertThat(stream.statistics().throttleLimit()).isEqualTo(-1);
        }
    }
}
