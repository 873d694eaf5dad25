package io.rangefetch.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.testing.ManualTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class FetchSchedulerTest {
    /** Backoffs end when the test moves this time past them: nothing waits for real time. */
    private final ManualTime time = new ManualTime();

    @Test
    void demandFetchesLeaveTheQueueBeforePrefetches() throws InterruptedException {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        FetchScheduler scheduler = new FetchScheduler(1, executor, executor, time.timeSource());
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(4);
        scheduler.submit(
                FetchPriority.PREFETCH,
                abort -> {
                    await(release);
                    order.add("running prefetch");
                    done.countDown();
                },
                e -> {});
        scheduler.submit(
                FetchPriority.PREFETCH,
                abort -> {
                    order.add("prefetch 1");
                    done.countDown();
                },
                e -> {});
        scheduler.submit(
                FetchPriority.PREFETCH,
                abort -> {
                    order.add("prefetch 2");
                    done.countDown();
                },
                e -> {});
        scheduler.submit(
                FetchPriority.DEMAND,
                abort -> {
                    order.add("demand");
                    done.countDown();
                },
                e -> {});
        release.countDown();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactly("running prefetch", "demand", "prefetch 1", "prefetch 2");
        scheduler.close();
        assertThat(executor.isTerminated()).isTrue();
    }

    @Test
    void aQueuedFetchCanBeCancelledAndClosingAbandonsTheRest() throws InterruptedException {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        FetchScheduler scheduler = new FetchScheduler(1, executor, executor, time.timeSource());
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        scheduler.submit(
                FetchPriority.DEMAND,
                abort -> {
                    started.countDown();
                    await(release);
                },
                e -> {});
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicReference<Throwable> cancelled = new AtomicReference<>();
        AtomicReference<Throwable> abandoned = new AtomicReference<>();
        FetchScheduler.Ticket ticket = scheduler.submit(FetchPriority.PREFETCH, abort -> {}, cancelled::set);
        scheduler.submit(FetchPriority.PREFETCH, abort -> {}, abandoned::set);
        assertThat(ticket.cancel()).isTrue();
        assertThat(cancelled.get()).isInstanceOf(FetchCancelledException.class);
        release.countDown();
        scheduler.close();
        assertThat(executor.isTerminated()).isTrue();
        AtomicReference<Throwable> afterClose = new AtomicReference<>();
        scheduler.submit(FetchPriority.DEMAND, abort -> {}, afterClose::set);
        assertThat(afterClose.get()).isInstanceOf(FactoryClosedException.class);
    }

    @Test
    void aPromotedPrefetchOvertakesTheOtherPrefetches() throws InterruptedException {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        FetchScheduler scheduler = new FetchScheduler(1, executor, executor, time.timeSource());
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(3);
        scheduler.submit(FetchPriority.DEMAND, abort -> await(release), e -> {});
        scheduler.submit(
                FetchPriority.PREFETCH,
                abort -> {
                    order.add("prefetch 1");
                    done.countDown();
                },
                e -> {});
        FetchScheduler.Ticket second = scheduler.submit(
                FetchPriority.PREFETCH,
                abort -> {
                    order.add("prefetch 2");
                    done.countDown();
                },
                e -> {});
        scheduler.submit(
                FetchPriority.DEMAND,
                abort -> {
                    order.add("demand");
                    done.countDown();
                },
                e -> {});
        second.promote();
        release.countDown();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        // promoted, it keeps its place in line among the demand fetches: it was asked for first
        assertThat(order).containsExactly("prefetch 2", "demand", "prefetch 1");
        scheduler.close();
    }

    @Test
    void cancellingARunningFetchAbortsItAndCloseWaitsOnlyForTheAbort() throws InterruptedException {
        ExecutorService executor = Executors.newCachedThreadPool();
        FetchScheduler scheduler = new FetchScheduler(2, executor, null, time.timeSource());
        CountDownLatch started = new CountDownLatch(2);
        List<String> ended = new CopyOnWriteArrayList<>();
        // stands for a GET blocked on its body: it ends only when aborted
        FetchScheduler.Fetch blocked = abort -> {
            started.countDown();
            while (!abort.isAborted()) {
                Thread.onSpinWait();
            }
            ended.add("aborted");
        };
        FetchScheduler.Ticket first = scheduler.submit(FetchPriority.PREFETCH, blocked, e -> {});
        scheduler.submit(FetchPriority.DEMAND, blocked, e -> {});
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(first.cancel()).isTrue();
        scheduler.close(); // aborts the second and waits for it, though the executor is not the scheduler's
        assertThat(ended).containsExactly("aborted", "aborted");
        assertThat(first.cancel()).isFalse();
        executor.shutdown();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void partsAreAffordableOnlyWhileSlotsAreIdle() throws InterruptedException {
        ExecutorService executor = Executors.newFixedThreadPool(4);
        FetchScheduler scheduler = new FetchScheduler(8, executor, executor, time.timeSource());
        assertThat(scheduler.partsAffordable(16, 1)).as("half the slots").isEqualTo(4);
        assertThat(scheduler.partsAffordable(3, 1)).as("never more than asked").isEqualTo(3);
        assertThat(scheduler.partsAffordable(16, 0))
                .as("no stream open counts as one")
                .isEqualTo(4);
        assertThat(scheduler.partsAffordable(16, 2))
                .as("two open streams share the idle slots")
                .isEqualTo(2);
        assertThat(scheduler.partsAffordable(16, 3))
                .as("a share under two is no split")
                .isEqualTo(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch first = new CountDownLatch(1);
        scheduler.submit(
                FetchPriority.DEMAND,
                abort -> {
                    first.countDown();
                    await(release);
                },
                e -> {});
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(scheduler.partsAffordable(16, 1))
                .as("one fetch counts twice: (8 - 2) / 2")
                .isEqualTo(3);
        CountDownLatch started = new CountDownLatch(3);
        for (int i = 0; i < 5; i++) { // 3 more run on the pool's 4 threads, 2 wait in the executor's queue
            scheduler.submit(
                    FetchPriority.DEMAND,
                    abort -> {
                        started.countDown();
                        await(release);
                    },
                    e -> {});
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(scheduler.partsAffordable(16, 1))
                .as("6 of 8 slots held: no split")
                .isEqualTo(1);
        for (int i = 0; i < 3; i++) { // past the scheduler's 8 slots: queued
            scheduler.submit(FetchPriority.PREFETCH, abort -> await(release), e -> {});
        }
        assertThat(scheduler.partsAffordable(16, 1)).as("never fewer than one").isEqualTo(1);
        release.countDown();
        scheduler.close();
        assertThat(executor.isTerminated()).isTrue();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aFetchWaitingOutABackoffHoldsNoSlotAndCanBeCancelledMeanwhile() throws InterruptedException {
        ExecutorService executor = Executors.newCachedThreadPool();
        FetchScheduler scheduler = new FetchScheduler(1, executor, executor, time.timeSource());
        List<String> runs = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> abandoned = new AtomicReference<>();
        FetchScheduler.Ticket waiting = scheduler.submitResumable(
                FetchPriority.DEMAND,
                abort -> {
                    runs.add("backing off");
                    throw new BackOff(TimeUnit.HOURS.toNanos(1));
                },
                abandoned::set);
        awaitBackingOff(scheduler, 1);
        assertThat(scheduler.runningFetches()).as("its one slot is free").isZero();

        CountDownLatch other = new CountDownLatch(1);
        scheduler.submit(
                FetchPriority.DEMAND,
                abort -> {
                    runs.add("other");
                    other.countDown();
                },
                e -> {});
        assertThat(other.await(10, TimeUnit.SECONDS))
                .as("another fetch ran on the only slot meanwhile")
                .isTrue();

        assertThat(waiting.cancel()).isTrue();
        assertThat(abandoned.get()).isInstanceOf(FetchCancelledException.class);
        assertThat(scheduler.backingOffFetches()).isZero();
        assertThat(waiting.cancel()).as("it ended once").isFalse();
        scheduler.close();
        assertThat(runs).containsExactly("backing off", "other");
        assertThat(executor.isTerminated()).isTrue();
    }

    @Test
    void aFetchThatBackedOffRunsAgainWithItsAbortAndWhatItKept() throws InterruptedException {
        ExecutorService executor = Executors.newCachedThreadPool();
        FetchScheduler scheduler = new FetchScheduler(2, executor, executor, time.timeSource());
        List<FetchAbort> aborts = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        scheduler.submitResumable(
                FetchPriority.PREFETCH,
                abort -> {
                    aborts.add(abort);
                    assertThat(abort.mayRunAgain()).isTrue();
                    if (abort.retryState() == null) {
                        abort.retryState("first run");
                        throw new BackOff(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                    assertThat(abort.retryState()).isEqualTo("first run");
                    done.countDown();
                },
                e -> {});
        time.advanceToTaskWithin(Duration.ofMillis(1), null); // the backoff passes
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(aborts).hasSize(2);
        assertThat(aborts.get(1)).isSameAs(aborts.get(0));
        scheduler.close();
        assertThat(executor.isTerminated()).isTrue();
    }

    /**
     * A fetch that backed off at once runs again on another thread while the first run's deferred tasks still run:
     * each run's tasks run once, after its own slot (found by RandomizedConcurrencyTest: the first thread went on
     * through a list the second run was adding to, and failed with ConcurrentModificationException).
     */
    @Test
    void aFetchRunningAgainWhileItsFirstRunsDeferredTasksRunKeepsEachRunsTasksApart() throws InterruptedException {
        ExecutorService executor = Executors.newCachedThreadPool();
        FetchScheduler scheduler = new FetchScheduler(2, executor, executor, time.timeSource());
        CountDownLatch firstTaskRunning = new CountDownLatch(1);
        CountDownLatch secondRunDeferred = new CountDownLatch(1);
        CountDownLatch secondTaskRan = new CountDownLatch(1);
        AtomicInteger firstTaskRuns = new AtomicInteger();
        AtomicInteger secondTaskRuns = new AtomicInteger();
        scheduler.submitResumable(
                FetchPriority.DEMAND,
                abort -> {
                    if (abort.retryState() == null) {
                        abort.retryState("first run");
                        scheduler.afterSlot(() -> {
                            firstTaskRuns.incrementAndGet();
                            firstTaskRunning.countDown();
                            await(secondRunDeferred); // still running when the fetch runs again elsewhere
                        });
                        throw new BackOff(0);
                    }
                    await(firstTaskRunning); // the first run's task holds its thread
                    scheduler.afterSlot(() -> {
                        secondTaskRuns.incrementAndGet();
                        secondTaskRan.countDown();
                    });
                    secondRunDeferred.countDown();
                },
                e -> {});
        time.advanceToTaskWithin(Duration.ZERO, null); // a backoff of nothing: requeued as soon as the scheduler runs
        assertThat(secondTaskRan.await(10, TimeUnit.SECONDS)).isTrue();
        scheduler.close();
        assertThat(executor.isTerminated()).isTrue();
        assertThat(firstTaskRuns.get()).as("the first run's task").isEqualTo(1);
        assertThat(secondTaskRuns.get()).as("the second run's task").isEqualTo(1);
    }

    @Test
    void closingAbandonsAFetchThatWaitsOutABackoff() throws InterruptedException {
        ExecutorService executor = Executors.newCachedThreadPool();
        FetchScheduler scheduler = new FetchScheduler(1, executor, executor, time.timeSource());
        AtomicReference<Throwable> abandoned = new AtomicReference<>();
        scheduler.submitResumable(
                FetchPriority.DEMAND,
                abort -> {
                    throw new BackOff(TimeUnit.HOURS.toNanos(1));
                },
                abandoned::set);
        awaitBackingOff(scheduler, 1);
        assertThat(time.awaitTaskWithin(Duration.ofHours(1)))
                .as("the task that requeues it is scheduled")
                .isEqualTo(Duration.ofHours(1));
        scheduler.close();
        assertThat(abandoned.get()).isInstanceOf(FactoryClosedException.class);
        assertThat(scheduler.backingOffFetches()).isZero();
        assertThat(executor.isTerminated()).isTrue();
        time.advance(Duration.ofHours(1)); // the requeue, run after close, finds the fetch ended and does nothing
        assertThat(scheduler.backingOffFetches()).isZero();
        assertThat(Thread.getAllStackTraces().keySet())
                .as("threads once the scheduler closed")
                .noneMatch(thread -> thread.getName().startsWith("rangefetch-") && thread.isAlive());
    }

    @Test
    void aFetchThatMayNotRunAgainIsNotOfferedTo() throws InterruptedException {
        ExecutorService executor = Executors.newCachedThreadPool();
        FetchScheduler scheduler = new FetchScheduler(1, executor, executor, time.timeSource());
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Boolean> mayRunAgain = new AtomicReference<>();
        scheduler.submit(
                FetchPriority.DEMAND,
                abort -> {
                    mayRunAgain.set(abort.mayRunAgain());
                    ran.countDown();
                },
                e -> {});
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mayRunAgain.get()).as("it must sleep a backoff out itself").isFalse();
        scheduler.close();
    }

    /** Waits (bounded) until {@code count} fetches wait out a backoff. */
    private static void awaitBackingOff(FetchScheduler scheduler, int count) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (scheduler.backingOffFetches() < count) {
            if (System.nanoTime() > until) {
                throw new AssertionError("no fetch came to back off");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
