package io.rangefetch.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.internal.fetch.ThrottleGovernor.Permit;
import io.rangefetch.internal.time.TimeSource;
import io.rangefetch.testing.ManualTime;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The per-bucket governor: AIMD counted in rounds (one increase per round of answers without a 503, one decrease
 * per burst of 503s, from what was in flight), its floor and ceiling, demand requests waiting for a place while prefetches and hedges are
 * shed, and every wait ending (a place, an abort, the deadline, an interrupt). Time is an injected clock; waits
 * are decided with futures, never sleeps.
 */
@Timeout(30)
class ThrottleGovernorTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final ManualTime manual = new ManualTime();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /** The test's clock, and a scheduler that runs nothing unless the test advances it (it never does here). */
    private TimeSource time() {
        return new TimeSource(now::get, manual.scheduler());
    }

    private ThrottleGovernor governor(int min, int max, int initial, int step, double factor) {
        ThrottleGovernor governor = new ThrottleGovernor(
                "bucket", new ThrottleSettings(true, min, max, initial, step, factor, false), time());
        return initial >= 3 ? warm(governor) : governor; // a limit of 1 or 2 is all used by one at a time
    }

    /** A governor that tests whether 503s are noise, with step 1 and factor 0.5. */
    private ThrottleGovernor noiseTesting(int min, int initial) {
        return warm(new ThrottleGovernor("bucket", new ThrottleSettings(true, min, 64, initial, 1, 0.5, true), time()));
    }

    /**
     * {@code governor} past its first answers (16, one at a time, none 503: too few in flight to grow a limit of 3
     * or more), where a lone 503 lowers the limit.
     */
    private ThrottleGovernor warm(ThrottleGovernor governor) {
        for (int i = 0; i < 16; i++) {
            Permit permit = governor.tryAcquire();
            now.addAndGet(1);
            permit.succeeded();
        }
        return governor;
    }

    private static List<Permit> take(ThrottleGovernor governor, int count) {
        List<Permit> permits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            permits.add(governor.tryAcquire());
        }
        assertThat(permits).doesNotContainNull();
        return permits;
    }

    @Test
    void aBurstOf503sToRequestsSentTogetherHalvesTheLimitOnce() {
        ThrottleGovernor governor = governor(2, 64, 16, 1, 0.5);
        List<Permit> burst = take(governor, 16);
        now.addAndGet(10);
        burst.forEach(Permit::throttled);
        assertThat(governor.limit())
                .as("16 answers of 503 to requests sent before the decrease")
                .isEqualTo(8);
        assertThat(governor.inFlight()).isZero();

        List<Permit> later = take(governor, 8);
        now.addAndGet(10);
        later.get(0).throttled();
        assertThat(governor.limit())
                .as("a request sent after the decrease counts again")
                .isEqualTo(4);
        later.forEach(Permit::succeeded);

        // a decrease starts from what was in flight, not from a limit nobody used
        ThrottleGovernor roomy = governor(1, 64, 32, 1, 0.5);
        List<Permit> few = take(roomy, 6);
        now.addAndGet(10);
        few.get(0).throttled();
        assertThat(roomy.limit()).as("6 in flight under a limit of 32").isEqualTo(3);
    }

    @Test
    void theLimitGrowsByTheStepOncePerRoundOfAnswersAndOnlyWhileItIsUsed() {
        ThrottleGovernor governor = governor(1, 12, 8, 2, 0.5);
        // a steady load: every answer is followed by a new request, so the limit is always used
        Deque<Permit> window = new ArrayDeque<>(take(governor, 8));
        List<Integer> limits = new ArrayList<>(List.of(governor.limit()));
        int answersSinceChange = 0;
        for (int i = 0; i < 200; i++) {
            now.addAndGet(5);
            window.poll().succeeded();
            answersSinceChange++;
            if (governor.limit() != limits.get(limits.size() - 1)) {
                assertThat(answersSinceChange)
                        .as("answers in the round before growing from %s", limits)
                        .isGreaterThanOrEqualTo(limits.get(limits.size() - 1) / 2);
                limits.add(governor.limit());
                answersSinceChange = 0;
            }
            while (window.size() < governor.limit()) {
                window.add(governor.tryAcquire());
            }
        }
        assertThat(limits).as("one step per round, up to the ceiling").containsExactly(8, 10, 12);

        ThrottleGovernor idle = governor(1, 64, 8, 1, 0.5);
        for (int i = 0; i < 100; i++) {
            idle.tryAcquire().succeeded(); // one at a time: the limit of 8 is not what holds anything back
        }
        assertThat(idle.limit()).isEqualTo(8);
    }

    @Test
    void theLimitNeverGoesBelowTheFloor() {
        ThrottleGovernor governor = governor(3, 64, 16, 1, 0.5);
        for (int i = 0; i < 10; i++) {
            Permit permit = governor.tryAcquire();
            now.addAndGet(10);
            permit.throttled();
        }
        assertThat(governor.limit()).isEqualTo(3);
    }

    @Test
    void aFreshGovernorsFirst503AloneLowersNothingAndASecondDoes() {
        ThrottleGovernor governor =
                new ThrottleGovernor("bucket", new ThrottleSettings(true, 1, 64, 16, 1, 0.5, true), time());
        List<Permit> first = take(governor, 8);
        now.addAndGet(10);
        first.get(0).throttled();
        assertThat(governor.limit())
                .as("one 503 among a fresh governor's first answers")
                .isEqualTo(16);
        first.get(1).succeeded();
        first.get(2).throttled();
        assertThat(governor.limit())
                .as("a second among them, no burst: 6 in flight, cut by a quarter")
                .isEqualTo(4);
        first.subList(3, first.size()).forEach(Permit::succeeded);
    }

    @Test
    void aRetryOfA503WaitsShortWhileTheLimitCanStillGoDown() {
        ThrottleGovernor governor = governor(2, 64, 8, 1, 0.5);
        assertThat(governor.retriesWaitShort()).as("limit 8, minimum 2").isTrue();
        List<Permit> permits = take(governor, 4);
        now.addAndGet(10);
        permits.get(0).throttled();
        assertThat(governor.limit()).as("4 in flight, halved").isEqualTo(2);
        permits.subList(1, permits.size()).forEach(Permit::ignored);
        assertThat(governor.retriesWaitShort())
                .as("at the minimum only a growing wait sends less")
                .isFalse();

        assertThat(noiseTesting(2, 8).retriesWaitShort()).isTrue();
    }

    @Test
    void aLimitATrialLoweredForLoadGoesBackWhenLater503sProveThemNoise() {
        ThrottleGovernor governor = noiseTesting(2, 16);
        List<Permit> rest = openTrial(governor, 16);
        assertThat(governor.limit())
                .as("a lone 503, no burst: cut by a quarter")
                .isEqualTo(12);
        now.addAndGet(10);
        rest.forEach(Permit::succeeded);
        // the trial's answers, none 503: 8 are too few to tell from noise at the share before (1 in 16), so it
        // waits for more, and after 32 it takes the 503 for load; the limit stays down
        for (int batch = 0; batch < 4; batch++) {
            trialStep(governor, 0);
            assertThat(governor.limit()).as("batch %s of the trial", batch).isEqualTo(12);
        }
        assertThat(governor.takes503sForNoise()).isFalse();
        // a 503 at that lower load, as often as before the trial: it was noise, and the limit goes back to 16
        List<Permit> later = take(governor, 8);
        now.addAndGet(10);
        later.get(0).throttled();
        assertThat(governor.takes503sForNoise()).isTrue();
        assertThat(governor.limit()).isEqualTo(16);
        later.subList(1, later.size()).forEach(Permit::succeeded);
    }

    @Test
    void aTrialWhoseLastStepsStillSeeA503IsLoadWhenTheShareFellFromWhereItBegan() {
        ThrottleGovernor governor = noiseTesting(1, 32);
        List<Permit> rest = openTrial(governor, 32);
        assertThat(governor.limit()).as("one 503 so far: cut by a quarter").isEqualTo(24);
        // 21 of the round's 32 answers 503: a burst, far above the server's rate
        for (int i = 0; i < rest.size(); i++) {
            if (i < 20) {
                rest.get(i).throttled();
            } else {
                rest.get(i).succeeded();
            }
        }
        trialStep(governor, 3);
        assertThat(governor.limit()).as("3 of 8 after the first cut: halved").isEqualTo(12);
        trialStep(governor, 1);
        assertThat(governor.limit()).as("1 of 8 after a burst: once more").isEqualTo(6);
        trialStep(governor, 1);
        // the last step saw as many as the one before, but 5 of 24 is clearly fewer than 20 of 31: load, not noise
        assertThat(governor.limit()).isEqualTo(6);
        assertThat(governor.takes503sForNoise()).isFalse();
    }

    /** {@code inFlight} requests sent together, the first answered 503: a trial opens. Returns the others. */
    private List<Permit> openTrial(ThrottleGovernor governor, int inFlight) {
        List<Permit> round = take(governor, inFlight);
        now.addAndGet(10);
        round.get(0).throttled();
        return round.subList(1, round.size());
    }

    /** 8 answers to requests sent from now on (a trial's step), the first {@code throttled} of them 503. */
    private void trialStep(ThrottleGovernor governor, int throttled) {
        now.addAndGet(10);
        int answered = 0;
        while (answered < 8) {
            List<Permit> batch = take(governor, Math.min(governor.limit(), 8 - answered));
            now.addAndGet(10);
            for (Permit permit : batch) {
                if (answered++ < throttled) {
                    permit.throttled();
                } else {
                    permit.succeeded();
                }
            }
        }
    }

    @Test
    void anAnswerCountsOnceWhetherItWasCountedAtItsHeadersOrWhenGivenBack() {
        ThrottleGovernor governor = governor(1, 64, 3, 1, 0.5);
        List<Permit> round = take(governor, 3);
        round.get(0).answered();
        round.get(0).succeeded();
        round.get(1).answered();
        assertThat(governor.limit()).as("two answers of a round of three").isEqualTo(3);
        assertThat(governor.inFlight())
                .as("an answered request keeps its place")
                .isEqualTo(2);
        round.get(2).succeeded();
        assertThat(governor.limit()).as("the third").isEqualTo(4);
        round.get(1).succeeded();
        assertThat(governor.inFlight()).isZero();
        Permit late = governor.tryAcquire();
        late.succeeded();
        late.answered();
        assertThat(governor.inFlight()).isZero();
    }

    @Test
    void aPermitIsGivenBackOnceAndAnIgnoredOneMovesNothing() {
        ThrottleGovernor governor = governor(1, 64, 4, 1, 0.5);
        Permit permit = governor.tryAcquire();
        permit.ignored();
        permit.throttled();
        permit.succeeded();
        assertThat(governor.inFlight()).isZero();
        assertThat(governor.limit()).isEqualTo(4);
    }

    @Test
    void atTheLimitDemandWaitsForAPlaceAndPrefetchesAreShedMeanwhile() throws Exception {
        ThrottleGovernor governor = governor(1, 64, 2, 1, 0.5);
        List<Permit> held = take(governor, 2);
        assertThat(governor.tryAcquire()).as("no place: a prefetch is shed").isNull();

        FetchAbort abort = FetchAbort.standalone();
        Future<Permit> demand = threads.submit(() -> governor.acquire(abort, Long.MAX_VALUE));
        awaitDemandWaiting(governor);
        held.get(0).succeeded();
        Permit granted = demand.get(10, TimeUnit.SECONDS);
        assertThat(governor.inFlight()).isEqualTo(2);

        // a place comes free while a demand request waits for one: the prefetch does not take it
        Future<Permit> second = threads.submit(() -> governor.acquire(abort, Long.MAX_VALUE));
        awaitDemandWaiting(governor);
        assertThat(governor.tryAcquire()).isNull();
        granted.succeeded();
        second.get(10, TimeUnit.SECONDS).succeeded();
        held.get(1).succeeded();
        assertThat(governor.tryAcquire()).as("nobody waits and places are free").isNotNull();
    }

    @Test
    void aWaitingDemandRequestEndsWhenAbortedAtItsDeadlineOrWhenInterrupted() throws Exception {
        ThrottleGovernor governor = governor(1, 64, 1, 1, 0.5);
        Permit held = governor.tryAcquire();

        FetchAbort abort = new FetchAbort(false);
        Future<Permit> aborted = threads.submit(() -> governor.acquire(abort, Long.MAX_VALUE));
        awaitDemandWaiting(governor);
        abort.abort();
        assertThatThrownBy(() -> aborted.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(FetchCancelledException.class);

        now.set(5_000);
        assertThatThrownBy(() -> governor.acquire(FetchAbort.standalone(), 4_000))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("bucket")
                .hasMessageContaining("limit 1");

        CompletableFuture<Thread> waiter = new CompletableFuture<>();
        Future<Object> interrupted = threads.submit(() -> {
            waiter.complete(Thread.currentThread());
            try {
                return governor.acquire(FetchAbort.standalone(), Long.MAX_VALUE);
            } catch (InterruptedIOException e) {
                return Thread.currentThread().isInterrupted() ? e : new AssertionError("the flag was cleared");
            }
        });
        awaitDemandWaiting(governor);
        waiter.get().interrupt();
        assertThat(interrupted.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class);
        held.succeeded();
        assertThat(governor.inFlight()).isZero();
    }

    @Test
    void theRegistryGivesOneGovernorPerBucketAndNoneWhenOff() {
        ThrottleGovernor.PerBucket governors =
                new ThrottleGovernor.PerBucket(new ThrottleSettings(true, 1, 8, 4, 1, 0.5, false), time());
        assertThat(governors.limit("a")).isEqualTo(-1);
        assertThat(governors.forBucket("a")).isSameAs(governors.forBucket("a")).isNotSameAs(governors.forBucket("b"));
        assertThat(governors.limit("a")).isEqualTo(4);
        List<Permit> permits = take(warm(governors.forBucket("b")), 4);
        now.addAndGet(1);
        permits.forEach(Permit::throttled);
        assertThat(governors.lowestLimit()).isEqualTo(2);
        assertThat(ThrottleGovernor.PerBucket.off().forBucket("a")).isNull();
        assertThat(ThrottleGovernor.PerBucket.off().lowestLimit()).isEqualTo(-1);
    }

    /** Waits (bounded) until a demand request is parked in the governor: a prefetch then finds no place. */
    private static void awaitDemandWaiting(ThrottleGovernor governor) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!governor.hasDemandWaiting()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("no demand request came to wait");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
