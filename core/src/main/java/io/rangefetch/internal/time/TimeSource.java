package io.rangefetch.internal.time;

import static java.util.Objects.requireNonNull;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A factory's one ticker and one scheduler: every deadline, timeout, delay and latency of the engine is measured
 * on the ticker and every wait for time to pass ends through a task on the scheduler, so that a test that injects
 * a ticker it moves and a scheduler it runs by hand makes time pass without waiting for it.
 *
 * <p><b>How a timed wait ends.</b> A part that waits until a deadline (a read's {@code read.deadline}, an answer's
 * first-byte timeout, a hedge's delay, a place under a throttle governor, a listing's page) schedules a task at the
 * deadline that wakes it, and looks at the ticker whenever it wakes: the deadline has passed when the task ran or the
 * ticker says so. So nothing waits on real time by itself; a ticker that stands still still ends waits through the
 * scheduler, and a scheduler run by hand ends them as soon as it is moved past the deadline.
 *
 * <p><b>Nothing waits on itself.</b> Tasks given to the scheduler only complete futures, wake waiters, cut a stalled
 * body or queue a fetch again: they never block and never run a fetch, so a fetch thread that waits for one never
 * waits on a thread that waits for it. A scheduler that refuses a task (it was shut down: the factory is closing, or
 * its owner stopped it) runs {@link #schedule}'s task at once on the caller's thread, so that a wait ends rather than
 * losing its deadline; parts that must tell a refusal apart call {@link ScheduledExecutorService} themselves.
 *
 * <p>Thread-safe, as its ticker and scheduler must be.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} makes it, and {@code internal.fetch},
 * {@code internal.list} and {@code internal.read} read the clock and schedule with it.
 */
public final class TimeSource {
    private final LongSupplier ticker;
    private final ScheduledExecutorService scheduler;

    /**
     * @param ticker monotonic nanoseconds, as {@link System#nanoTime()}: only differences between its values mean
     *     anything
     * @param scheduler runs delayed work; its tasks are short and never block
     */
    public TimeSource(LongSupplier ticker, ScheduledExecutorService scheduler) {
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
    }

    /** The ticker's reading now. */
    public long nanos() {
        return ticker.getAsLong();
    }

    public LongSupplier ticker() {
        return ticker;
    }

    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /**
     * The ticker reading at which a wait of {@code limit} from now ends; {@link Long#MAX_VALUE} for a zero limit (no
     * limit) or one too far off to add.
     */
    public long deadlineAfter(Duration limit) {
        long nanos = limit.toNanos();
        long now = nanos();
        return nanos == 0 || now + nanos < now ? Long.MAX_VALUE : now + nanos;
    }

    /** Whether the ticker has reached {@code deadline} (never for {@link Long#MAX_VALUE}). */
    public boolean passed(long deadline) {
        return deadline != Long.MAX_VALUE && nanos() - deadline >= 0;
    }

    /**
     * Runs {@code task} on the scheduler once {@code delayNanos} have passed (at once when not positive); runs it now
     * on this thread if the scheduler refuses it. The returned handle cancels it.
     */
    public Timer schedule(Runnable task, long delayNanos) {
        requireNonNull(task, "task is null");
        try {
            ScheduledFuture<?> scheduled = scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> scheduled.cancel(false);
        } catch (RejectedExecutionException e) {
            task.run();
            return Timer.NONE;
        }
    }

    /** {@link #schedule}, at a ticker reading; nothing for {@link Long#MAX_VALUE}. */
    public Timer scheduleAt(long deadline, Runnable task) {
        if (deadline == Long.MAX_VALUE) {
            return Timer.NONE;
        }
        return schedule(task, deadline - nanos());
    }

    /**
     * A future completed by the scheduler when the ticker reaches {@code deadline}, or completed now when it already
     * has; never completed for {@link Long#MAX_VALUE}. Cancel its timer through {@link Due#close()}.
     */
    public Due dueAt(long deadline) {
        CompletableFuture<Void> due = new CompletableFuture<>();
        if (passed(deadline)) {
            due.complete(null);
            return new Due(due, Timer.NONE);
        }
        return new Due(due, scheduleAt(deadline, () -> due.complete(null)));
    }

    /**
     * Waits {@code nanos} on this thread, the scheduler ending the wait: for a retry's backoff that cannot be waited
     * out off the fetch slot.
     *
     * @throws InterruptedIOException when interrupted (the flag stays set), naming {@code what}
     */
    public void sleep(long nanos, String what) throws InterruptedIOException {
        if (nanos <= 0) {
            return;
        }
        try (Due due = dueAt(nanos() + nanos)) {
            due.future().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException(what + " was interrupted between attempts");
            interrupted.initCause(e);
            throw interrupted;
        } catch (ExecutionException e) {
            throw new IllegalStateException("A backoff's timer failed", e.getCause());
        }
    }

    /** A scheduled task that may be cancelled; cancelling one that ran or was cancelled does nothing. */
    @FunctionalInterface
    public interface Timer {
        Timer NONE = () -> {};

        void cancel();
    }

    /** A future the scheduler completes at a deadline, and the timer that will; closing cancels the timer. */
    public record Due(CompletableFuture<Void> future, Timer timer) implements AutoCloseable {
        public Due {
            requireNonNull(future, "future is null");
            requireNonNull(timer, "timer is null");
        }

        public boolean isDue() {
            return future.isDone();
        }

        @Override
        public void close() {
            timer.cancel();
        }
    }
}
