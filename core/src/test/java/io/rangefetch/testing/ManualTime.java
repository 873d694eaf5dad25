package io.rangefetch.testing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.time.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Time a test moves by hand: a ticker that stands still until the test {@linkplain #advance advances} it, and a
 * scheduler whose tasks run only then, on the test's thread, in the order of their times (the ticker set to each
 * task's time as it runs, so a periodic task runs once per period passed). Give both to a factory
 * ({@link StreamFixture#factory(io.rangefetch.StreamConfig, ManualTime)}) or to a part ({@link #timeSource()}), and
 * a timeout, a hedge's delay, a backoff or a deadline happens exactly when the test moves time past it, never
 * because a machine was slow.
 *
 * <p>A test that must know the library is waiting for time before it moves it (a request was sent and its timeout
 * set) {@linkplain #awaitTaskWithin waits for the task to be scheduled}: on this object's monitor, which scheduling
 * and cancelling notify, bounded by a guard of {@value #GUARD_SECONDS} s that fails the test rather than hang it.
 *
 * <p>Thread-safe: the library schedules and cancels from its threads while the test advances. Tasks run outside the
 * monitor; one that throws fails the {@link #advance} that ran it.
 */
public final class ManualTime {
    private static final long GUARD_SECONDS = 20;

    private final Scheduler scheduler = new Scheduler();
    // Guarded by this.
    private final PriorityQueue<Task<?>> tasks = new PriorityQueue<>();
    private long now = 1L << 40; // far from zero: only differences between readings may mean anything
    private long sequence;
    private boolean shutdown;

    /** The ticker's reading now, in nanoseconds. */
    public synchronized long nanos() {
        return now;
    }

    public LongSupplier ticker() {
        return this::nanos;
    }

    /** The scheduler: its tasks run when {@link #advance} passes their time. */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** The ticker and the scheduler, for a part of the engine built by hand. */
    public TimeSource timeSource() {
        return new TimeSource(ticker(), scheduler);
    }

    /** Tasks scheduled and not yet run or cancelled. */
    public synchronized int pendingTasks() {
        return tasks.size();
    }

    /**
     * Moves the ticker {@code by} forward, running every task due until then in time order (a task scheduled by
     * one that runs, due by then, runs too).
     *
     * @throws AssertionError if a task threw (the others still ran)
     */
    public void advance(Duration by) {
        requireNonNull(by, "by is null");
        long target;
        synchronized (this) {
            target = now + by.toNanos();
        }
        List<Throwable> failures = new ArrayList<>();
        while (true) {
            Task<?> next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.due - target > 0) {
                    now = target;
                    notifyAll();
                    break;
                }
                tasks.poll();
                now = Math.max(now, next.due);
            }
            Throwable failure = next.runOnce();
            if (failure != null) {
                failures.add(failure);
            }
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("A scheduled task failed", failures.get(0));
            failures.stream().skip(1).forEach(error::addSuppressed);
            throw error;
        }
    }

    /**
     * Waits until a task is scheduled to run within {@code within} from now (the library has set the timer the
     * test is about to fire); returns how far off it is.
     *
     * @throws AssertionError if none is within the guard
     */
    public Duration awaitTaskWithin(Duration within) throws InterruptedException {
        return awaitTaskWithin(within, null);
    }

    /**
     * Moves time to the first task due within {@code within} once one is scheduled, running it (and any due with
     * it); {@code false}, moving nothing, if {@code done} completed first.
     */
    public boolean advanceToTaskWithin(Duration within, Future<?> done) throws InterruptedException {
        Duration next = awaitTaskWithin(within, done);
        if (next == null) {
            return false;
        }
        advance(next);
        return true;
    }

    /**
     * Moves time from task to task, each the first due within {@code horizon} once it is scheduled, until
     * {@code done} completes: for a read whose retries wait out backoffs no longer than {@code horizon}.
     */
    public void advanceUntilDone(Duration horizon, CompletableFuture<?> done) throws InterruptedException {
        while (advanceToTaskWithin(horizon, done)) {
            // one task at a time: each may schedule the next
        }
    }

    private Duration awaitTaskWithin(Duration within, Future<?> done) throws InterruptedException {
        if (done instanceof CompletableFuture<?> future) {
            future.whenComplete((result, failure) -> wake());
        }
        long guard = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
        synchronized (this) {
            while (true) {
                if (done != null && done.isDone()) {
                    return null;
                }
                Task<?> next = tasks.peek();
                if (next != null && next.due - now <= within.toNanos()) {
                    return Duration.ofNanos(Math.max(0, next.due - now));
                }
                long left = guard - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("No task was scheduled within " + within + " of now (" + tasks.size()
                            + " pending) in " + GUARD_SECONDS + " s");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left); // woken by every schedule, cancel and completion
            }
        }
    }

    private synchronized void wake() {
        notifyAll();
    }

    private <T> Task<T> add(Callable<T> work, long delayNanos, long periodNanos) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException("The manual scheduler is shut down");
            }
            Task<T> task = new Task<>(work, now + Math.max(0, delayNanos), periodNanos, ++sequence);
            tasks.add(task);
            notifyAll();
            return task;
        }
    }

    /** One scheduled task; periodic ones go back in the queue after each run, with a fixed delay. */
    private final class Task<T> implements ScheduledFuture<T> {
        private final Callable<T> work;
        private final long period;
        private final long order;
        private final CompletableFuture<T> result = new CompletableFuture<>();
        private long due; // guarded by ManualTime.this

        Task(Callable<T> work, long due, long period, long order) {
            this.work = work;
            this.due = due;
            this.period = period;
            this.order = order;
        }

        /** Runs on the advancing thread, outside the monitor. */
        Throwable runOnce() {
            if (result.isDone()) {
                return null; // cancelled
            }
            try {
                T value = work.call();
                if (period == 0) {
                    result.complete(value);
                } else {
                    synchronized (ManualTime.this) {
                        if (!result.isDone() && !shutdown) {
                            due = now + period;
                            tasks.add(this);
                        }
                    }
                }
                return null;
            } catch (Throwable e) {
                result.completeExceptionally(e);
                return e;
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = result.cancel(false);
            synchronized (ManualTime.this) {
                tasks.remove(this);
                ManualTime.this.notifyAll();
            }
            return cancelled;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            synchronized (ManualTime.this) {
                return unit.convert(due - now, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public int compareTo(Delayed other) {
            Task<?> that = (Task<?>) other;
            int byDue = Long.compare(due - now, that.due - now);
            return byDue != 0 ? byDue : Long.compare(order, that.order);
        }

        @Override
        public boolean isCancelled() {
            return result.isCancelled();
        }

        @Override
        public boolean isDone() {
            return result.isDone();
        }

        @Override
        public T get() throws InterruptedException, ExecutionException {
            return result.get();
        }

        @Override
        public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            return result.get(timeout, unit);
        }
    }

    /** The {@link ScheduledExecutorService} face of this time: nothing runs until the test advances. */
    private final class Scheduler extends AbstractExecutorService implements ScheduledExecutorService {
        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            return add(
                    () -> {
                        command.run();
                        return null;
                    },
                    unit.toNanos(delay),
                    0);
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            return add(callable, unit.toNanos(delay), 0);
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            return scheduleWithFixedDelay(command, initialDelay, period, unit); // the same when tasks take no time
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(
                Runnable command, long initialDelay, long delay, TimeUnit unit) {
            if (delay <= 0) {
                throw new IllegalArgumentException("delay must be positive, got " + delay);
            }
            return add(
                    () -> {
                        command.run();
                        return null;
                    },
                    unit.toNanos(initialDelay),
                    unit.toNanos(delay));
        }

        @Override
        public void execute(Runnable command) {
            schedule(command, 0, TimeUnit.NANOSECONDS);
        }

        @Override
        public void shutdown() {
            synchronized (ManualTime.this) {
                shutdown = true;
            }
        }

        @Override
        public List<Runnable> shutdownNow() {
            synchronized (ManualTime.this) {
                shutdown = true;
                tasks.clear();
                ManualTime.this.notifyAll();
            }
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            synchronized (ManualTime.this) {
                return shutdown;
            }
        }

        @Override
        public boolean isTerminated() {
            return isShutdown();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return isShutdown();
        }
    }
}
