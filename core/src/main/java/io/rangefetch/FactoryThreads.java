package io.rangefetch;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads a {@link StreamFactory} runs on, and which of them it owns. Three kinds: fetch threads (the builder's
 * executor, else a cached pool of the factory's own, {@code rangefetch-fetch-N-*}), exchange threads (requests are
 * sent from them so a fetch thread can stop waiting for a first byte: always the factory's own, and none when first
 * bytes are not watched), and one timer thread for delayed work (the builder's scheduler, else the factory's own).
 * What the factory started, its close stops; what it was given stays its giver's.
 *
 * <p>The fetch threads are stopped by the fetch scheduler, which owns the fetches on them (see
 * {@link #ownedFetches}); the exchange threads and the timer are stopped here, after it.
 */
final class FactoryThreads {
    private static final AtomicInteger FACTORY_IDS = new AtomicInteger();
    private static final Logger LOG = LoggerFactory.getLogger(FactoryThreads.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 10;
    /** How long an idle thread of the factory's timer lives, as a cached pool's threads do. */
    private static final long IDLE_THREAD_SECONDS = 60;

    private final int id;
    private final Executor fetches;
    private final ExecutorService ownedFetches;
    private final ExecutorService exchanges;
    private final ScheduledExecutorService timer;
    private final ScheduledExecutorService ownedTimer;

    /**
     * @param givenFetches the builder's executor for fetches, or {@code null}
     * @param givenTimer the builder's scheduler for delayed work, or {@code null}
     * @param watchesFirstBytes whether requests are sent from exchange threads (see {@code AttemptSender})
     */
    FactoryThreads(Executor givenFetches, ScheduledExecutorService givenTimer, boolean watchesFirstBytes) {
        this.id = FACTORY_IDS.incrementAndGet();
        this.ownedFetches =
                givenFetches == null ? Executors.newCachedThreadPool(daemonThreads("rangefetch-fetch-" + id)) : null;
        this.fetches = givenFetches == null ? ownedFetches : givenFetches;
        this.exchanges =
                watchesFirstBytes ? Executors.newCachedThreadPool(daemonThreads("rangefetch-exchange-" + id)) : null;
        this.ownedTimer = givenTimer == null ? idleReleasingTimer("rangefetch-timer-" + id) : null;
        this.timer = givenTimer == null ? ownedTimer : givenTimer;
    }

    /** The factory's number, as its threads' names carry it ({@code rangefetch-fetch-N-1}). */
    int id() {
        return id;
    }

    /** Where fetches run. */
    Executor fetches() {
        return fetches;
    }

    /** The fetch pool the factory started, for the fetch scheduler to stop; {@code null} when it was given one. */
    ExecutorService ownedFetches() {
        return ownedFetches;
    }

    /** Where requests are sent from; {@code null} when first bytes are not watched. */
    Executor exchanges() {
        return exchanges;
    }

    /** Where delayed work runs. */
    ScheduledExecutorService timer() {
        return timer;
    }

    /**
     * Stops the exchange threads and the factory's own timer. An exchange thread may still wait for an answer whose
     * fetch was aborted: interrupting it is all that can be done, and that answer is cut when it comes. Never
     * throws; threads that do not stop in time are logged.
     */
    void stopExchangesAndTimer() {
        stop(exchanges, "exchange");
        stop(ownedTimer, "timer");
    }

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
     * The factory's timer: its one thread ends once idle for as long as the cached pools' do (a factory an engine
     * never closes keeps no thread), and a cancelled task (a deadline met, a watchdog check stopped) leaves its queue
     * at once.
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
}
