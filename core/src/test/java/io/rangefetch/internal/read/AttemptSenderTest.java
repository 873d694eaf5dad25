package io.rangefetch.internal.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.RequestRecord;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchAbortAccess;
import io.rangefetch.internal.fetch.ThrottleGovernor;
import io.rangefetch.internal.fetch.ThrottleSettings;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.testing.ManualTime;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One attempt's wait for its answer: hedged when slow, the first answer winning and the other cut; hedges held to
 * their share of the GETs and to a free place under the governor; given up at the first-byte timeout. Time is a
 * {@link ManualTime}: it stands still until the first GET has reached the client, then a driver moves it to each
 * timer the sender sets (a hedge's delay, a first-byte timeout) as soon as it is set, so a threshold passes only
 * once the request was sent, and no test depends on how long anything takes.
 */
@Timeout(30)
class AttemptSenderTest {
    private static final ObjectAddress OBJECT = new ObjectAddress("bucket", "key");
    private static final RangeGetRequest REQUEST = RangeGetRequest.of(OBJECT, new ByteRange(0, 4), "etag");

    private final ExecutorService exchanges = Executors.newCachedThreadPool();
    private final ManualTime time = new ManualTime();
    private final CompletableFuture<Void> testEnded = new CompletableFuture<>();
    private final CountDownLatch firstMayAnswer = new CountDownLatch(1);
    private final CountDownLatch held = new CountDownLatch(1);
    private final ScriptedClient client = new ScriptedClient();
    private final StatisticsCounter statistics = StatisticsCounter.root();

    /** Once the first GET has reached the client, moves time to every timer the sender sets, until the test ends. */
    @BeforeEach
    void driveTimeOnceTheFirstGetArrived() {
        exchanges.execute(() -> {
            try {
                client.firstArrived.await();
                while (!testEnded.isDone()) {
                    try {
                        time.advanceToTaskWithin(Duration.ofDays(1), testEnded);
                    } catch (AssertionError nothingScheduledForAWhile) {
                        // look again: the sender sets a timer with each GET it waits for
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the test ended
            }
        });
    }

    @AfterEach
    void stop() throws InterruptedException {
        testEnded.complete(null);
        firstMayAnswer.countDown();
        held.countDown();
        exchanges.shutdownNow();
        assertThat(exchanges.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /** A sender that has seen enough first bytes (of a millisecond) to hedge GETs of this test's size. */
    private AttemptSender sender(Duration firstByteTimeout, double hedgeShare) {
        AttemptSender sender = new AttemptSender(
                client,
                exchanges,
                firstByteTimeout,
                new HedgeSettings(hedgeShare > 0, 0.95, Duration.ofMillis(100), hedgeShare),
                time.timeSource());
        for (int i = 0; i < FirstByteLatencies.MIN_SAMPLES; i++) {
            sender.recordFirstByte(4, TimeUnit.MILLISECONDS.toNanos(1));
        }
        return sender;
    }

    @Test
    void aFreshSendersSlowGetIsHedgedThoughItsSizeClassHasNoLatenciesYet() throws Exception {
        AttemptSender fresh = new AttemptSender(
                client,
                exchanges,
                Duration.ZERO,
                new HedgeSettings(true, 0.95, Duration.ofMillis(100), 0.05),
                time.timeSource());
        AttemptSender.Answer answer =
                fresh.get(REQUEST, 4, FetchAbort.standalone(), statistics, null, null, RequestRecord.NONE);
        assertThat(answer.content().body().readAllBytes()).containsExactly(2, 2, 2, 2); // the hedge's
        assertThat(statistics.hedgesSent()).isEqualTo(1);
        firstMayAnswer.countDown();
        assertThat(client.firstCut.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void eachSendIsAFlightRecorderEventAndTheCutLoserSaysItLostToTheHedge(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("hedge.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("rangefetch.GetAttempt").withThreshold(Duration.ZERO);
            recording.start();
            ThrottleGovernor governor = governor(4);
            RequestRecord record = RequestRecord.get(
                    "bucket", "key", REQUEST.httpRange(), 4, 1, false, FetchCause.SEQUENTIAL_PREFETCH);
            AttemptSender.Answer answer = sender(Duration.ZERO, 1.0)
                    .get(REQUEST, 4, FetchAbort.standalone(), statistics, governor, governor.tryAcquire(), record);
            assertThat(answer.content().body().readAllBytes()).containsExactly(2, 2, 2, 2);
            answer.record().completed(4);
            firstMayAnswer.countDown();
            assertThat(client.firstCut.await(10, TimeUnit.SECONDS)).isTrue();
            answer.permit().succeeded();
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        assertThat(events)
                .extracting(
                        event -> event.getBoolean("hedge"),
                        event -> event.getString("outcome"),
                        event -> event.getString("cause"),
                        event -> event.getString("range"),
                        event -> event.getLong("received"))
                .containsExactlyInAnyOrder(
                        tuple(true, "complete", "sequential prefetch", "bytes=0-3", 4L),
                        tuple(false, "hedge lost", "sequential prefetch", "bytes=0-3", 0L));
        assertThat(events)
                .allSatisfy(event -> assertThat(event.getLong("firstByte")).isNotNegative());
    }

    @Test
    void aGetSlowToAnswerIsSentAgainAndTheFirstAnswerWinsWhileTheOtherIsCut() throws Exception {
        ThrottleGovernor governor = governor(4);
        AttemptSender.Answer answer = sender(Duration.ZERO, 1.0)
                .get(
                        REQUEST,
                        4,
                        FetchAbort.standalone(),
                        statistics,
                        governor,
                        governor.tryAcquire(),
                        RequestRecord.NONE);

        assertThat(answer.content().body().readAllBytes()).containsExactly(2, 2, 2, 2); // the second send's
        assertThat(client.gets.get()).isEqualTo(2);
        assertThat(statistics.hedgesSent()).isEqualTo(1);
        assertThat(statistics.hedgesWon()).isEqualTo(1);
        assertThat(statistics.getRequests()).as("the hedge is a GET sent").isEqualTo(1);

        firstMayAnswer.countDown();
        assertThat(client.firstCut.await(10, TimeUnit.SECONDS))
                .as("the late first answer is cut")
                .isTrue();
        answer.permit().succeeded();
        awaitNothingInFlight(governor);
    }

    @Test
    void theFirstTwoHedgesGoBeforeTheirShareOfTheGetsAndTheNextWaitsForIt() throws Exception {
        AttemptSender sender = sender(Duration.ZERO, 0.05);
        client.holdEvery = true; // every answer waits: each GET waits until it is aborted
        int[] heldPerGet = {1, 2, 1}; // GET 1 (held apart) and its hedge; GET 3 and its hedge; GET 5 alone
        for (int held : heldPerGet) {
            FetchAbort abort = FetchAbortAccess.abortable();
            exchanges.execute(() -> {
                try {
                    client.heldArrivals.tryAcquire(held, 10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                FetchAbortAccess.abort(abort); // whether to hedge was decided before the sender first waits
            });
            assertThatThrownBy(() -> sender.get(REQUEST, 4, abort, statistics, null, null, RequestRecord.NONE))
                    .isInstanceOf(io.rangefetch.internal.fetch.FetchCancelledException.class);
        }
        // 3 GETs sent: 5% of them is under the 2 hedges allowed until the share is larger
        assertThat(statistics.hedgesSent()).isEqualTo(2);
    }

    @Test
    void aHedgeNeedsAFreePlaceUnderTheBucketsGovernor() throws Exception {
        ThrottleGovernor governor = governor(1);
        AttemptSender sender = sender(Duration.ofSeconds(5), 1.0);
        assertThatThrownBy(() -> sender.get(
                        REQUEST,
                        4,
                        FetchAbort.standalone(),
                        statistics,
                        governor,
                        governor.tryAcquire(),
                        RequestRecord.NONE))
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessageContaining("s3://bucket/key")
                .hasMessageContaining("retry.first-byte-timeout");
        assertThat(statistics.hedgesSent())
                .as("the only place is the first send's")
                .isZero();
        firstMayAnswer.countDown();
        assertThat(client.firstCut.await(10, TimeUnit.SECONDS)).isTrue();
        awaitNothingInFlight(governor);
    }

    @Test
    void a503IsCountedAndLowersTheGovernorsLimit() throws Exception {
        client.failWith = new HttpStatusException("GET s3://bucket/key: HTTP 503 SlowDown", 503, null);
        ThrottleGovernor governor = governor(8);
        List<ThrottleGovernor.Permit> others = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            others.add(governor.tryAcquire()); // the limit is in use: a 503 halves what is in flight
        }
        for (int answer = 1; answer <= 2; answer++) {
            assertThatThrownBy(() -> sender(Duration.ZERO, 0)
                            .get(
                                    REQUEST,
                                    4,
                                    FetchAbort.standalone(),
                                    statistics,
                                    governor,
                                    governor.tryAcquire(),
                                    RequestRecord.NONE))
                    .isInstanceOf(HttpStatusException.class);
            assertThat(statistics.throttledResponses()).isEqualTo(answer);
            // a fresh governor takes a lone first 503 for no load yet; the second halves what is in flight
            assertThat(governor.limit()).as("after 503 number %s", answer).isEqualTo(answer == 1 ? 8 : 4);
        }
        others.forEach(ThrottleGovernor.Permit::ignored);
        assertThat(governor.inFlight()).isZero();
    }

    /**
     * S3 answers a 503 at once and a 200 only once its body is read: counted then, the first answers of a scan
     * would be its 503s, and a trial's answers would take a body's time to come instead of a first byte's.
     */
    @Test
    void anAnswerCountsTowardTheGovernorAtItsHeadersWhileItsPlaceIsHeldUntilItsBodyIsRead() throws Exception {
        firstMayAnswer.countDown();
        ThrottleGovernor governor = governor(2);
        AttemptSender sender = sender(Duration.ZERO, 0);
        List<AttemptSender.Answer> answers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            answers.add(sender.get(
                    REQUEST,
                    4,
                    FetchAbort.standalone(),
                    statistics,
                    governor,
                    governor.tryAcquire(),
                    RequestRecord.NONE));
        }
        assertThat(governor.limit())
                .as("a round of answers at a limit in use, no body read yet")
                .isEqualTo(3);
        assertThat(governor.inFlight()).isEqualTo(2);
        for (AttemptSender.Answer answer : answers) {
            assertThat(answer.content().body().readAllBytes()).hasSize(4);
            answer.permit().succeeded();
        }
        assertThat(governor.inFlight()).isZero();
    }

    @Test
    void anAbortEndsTheWaitForAnAnswer() throws Exception {
        FetchAbort abort = FetchAbortAccess.abortable();
        ThrottleGovernor governor = governor(4);
        exchanges.execute(() -> {
            try {
                client.firstArrived.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            FetchAbortAccess.abort(abort);
        });
        assertThatThrownBy(() -> sender(Duration.ZERO, 0)
                        .get(REQUEST, 4, abort, statistics, governor, governor.tryAcquire(), RequestRecord.NONE))
                .isInstanceOf(io.rangefetch.internal.fetch.FetchCancelledException.class);
        firstMayAnswer.countDown();
        assertThat(client.firstCut.await(10, TimeUnit.SECONDS)).isTrue();
        awaitNothingInFlight(governor);
    }

    @Test
    void aSendAbandonedBeforeAnExchangeThreadTookItUpIsNeverSent() throws Exception {
        List<Runnable> queued = new ArrayList<>(); // exchange threads all busy: sends wait here
        AttemptSender busy = new AttemptSender(
                client,
                queued::add,
                Duration.ZERO,
                new HedgeSettings(false, 0.95, Duration.ZERO, 0),
                time.timeSource());
        ThrottleGovernor governor = governor(4);
        FetchAbort abort = FetchAbortAccess.abortable();
        FetchAbortAccess.abort(abort); // the reader left before the request went out
        client.failWith = new IOException("sent"); // so that a send that goes out anyway does not wait for the test
        assertThatThrownBy(() ->
                        busy.get(REQUEST, 4, abort, statistics, governor, governor.tryAcquire(), RequestRecord.NONE))
                .isInstanceOf(io.rangefetch.internal.fetch.FetchCancelledException.class);
        assertThat(governor.inFlight()).as("its place is given back at once").isZero();

        assertThat(queued).hasSize(1);
        queued.forEach(Runnable::run); // an exchange thread is free at last
        assertThat(client.gets.get()).as("GETs that reached the client").isZero();
        assertThat(governor.inFlight()).isZero();
    }

    private ThrottleGovernor governor(int limit) {
        return new ThrottleGovernor.PerBucket(
                        new ThrottleSettings(true, 1, 64, limit, 1, 0.5, false), time.timeSource())
                .forBucket("bucket");
    }

    /** A cut answer's place is given back before it is cut: once the cut is seen, nothing may be in flight. */
    private static void awaitNothingInFlight(ThrottleGovernor governor) {
        assertThat(governor.inFlight()).isZero();
    }

    /**
     * Answers the first GET only once the test lets it (recording when that answer is cut), every later GET at
     * once with bytes of its own number; or fails every GET with {@code failWith}.
     */
    private final class ScriptedClient implements ObjectClient {
        final AtomicInteger gets = new AtomicInteger();
        final CountDownLatch firstArrived = new CountDownLatch(1);
        final CountDownLatch firstCut = new CountDownLatch(1);
        final List<ObjectContent> answered = new CopyOnWriteArrayList<>();
        volatile IOException failWith;
        /** Whether every GET from now on waits like the first, until the test ends. */
        volatile boolean holdEvery;
        /** One permit for each GET after the first that arrived to be held. */
        final Semaphore heldArrivals = new Semaphore(0);

        @Override
        public ObjectContent get(RangeGetRequest request) throws IOException {
            int number = gets.incrementAndGet();
            if (failWith != null) {
                throw failWith;
            }
            if (number == 1) {
                firstArrived.countDown();
            }
            byte value = (byte) number;
            ByteArrayInputStream body = new ByteArrayInputStream(new byte[] {value, value, value, value}) {
                @Override
                public void close() {
                    if (number == 1) {
                        firstCut.countDown();
                    }
                }
            };
            if (number == 1 || holdEvery) {
                if (number > 1) {
                    heldArrivals.release();
                }
                try {
                    (number == 1 ? firstMayAnswer : held).await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ObjectContent content = new ObjectContent(body, new ByteRange(0, 4), new ObjectMetadata(4, "etag"));
            answered.add(content);
            return content;
        }

        @Override
        public ObjectMetadata head(ObjectAddress object) {
            return new ObjectMetadata(4, "etag");
        }
    }
}
