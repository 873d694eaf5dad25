package io.rangefetch.internal.fetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.time.TimeSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every GET of one factory. At most {@code maxConcurrency} run at once across all streams; the rest wait
 * in one queue where demand fetches (a reader is waiting) always come before prefetches, and equal priorities
 * go first come, first served. A prefetch a reader starts waiting for is promoted to a demand fetch, so it
 * stops queueing behind speculation.
 *
 * <p>A fetch can be stopped through its {@link Ticket}: a queued one never starts, a running one is aborted
 * (see {@link FetchAbort}), as when the stream that asked for a prefetch closes.
 *
 * <p><b>Backoff off the slot.</b> A fetch {@linkplain #submitResumable submitted as resumable} waits out a retry's
 * backoff by throwing {@link BackOff}: its slot comes back at once (other fetches run meanwhile), and after the delay
 * it is queued again with its priority and sequence, so it goes before the fetches of its priority that came after
 * it. No thread waits for it meanwhile: a task on the factory's scheduler ({@link TimeSource}, which the factory
 * stops after this scheduler) queues it, taking only the scheduler's monitor and handing the fetch to the executor,
 * never running it. A fetch waiting so is cancelled, promoted and abandoned at close as a queued one is.
 *
 * <p><b>Time.</b> A reader's wait with a deadline ({@link #awaitUntil}) ends through a task the time source's
 * scheduler runs at the deadline, never through a timed wait on real time; only the look for dropped fetches (below)
 * and the bound on {@link #close()} are real time: they decide no outcome a read could see but a garbage
 * collection's or a stuck thread's, and a ticker a test stands still must not make a close hang.
 *
 * <p><b>Every fetch ends once.</b> A submitted fetch ends once: it runs until it returns (again after each backoff),
 * or has its {@code abandon} called, once and never while it runs (a fetch that backed off may be abandoned before
 * its next run): when it is cancelled while queued or backing off, when the factory closes, when the executor refuses it (with any exception, not only
 * {@link RejectedExecutionException}) and when the executor silently drops it. A dropped task is found when the
 * garbage collector has reclaimed the task object without it having run (a phantom reference to it is enqueued);
 * the queue of such references is polled whenever fetches are dispatched and by readers waiting in {@link #await},
 * so no extra thread is needed. Whatever happens, the slot comes back.
 *
 * <p><b>Nothing waits on its own slot.</b> Work that completes a caller's future (whose callbacks may read
 * again, and so wait for fetches) is {@linkplain #afterSlot deferred} until the fetch running it has given its
 * slot back.
 *
 * <p>Fetches run on an executor the factory owns (named daemon threads, shut down by {@link #close()}) or on
 * one the caller supplies (left running). Never on the common pool. Thread-safe; the scheduler's monitor is
 * never held while a fetch, an executor or a callback runs.
 *
 * <p><b>Why one file.</b> The queue, the slots, the backoff timer's requeues, promotion, cancellation and the
 * dropped-task check all change state under the one monitor, and "every fetch ends once" is a property of how they
 * interleave: split over classes, that rule would have to be re-proved across each boundary. Its length is that rule.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} makes it, and {@code internal.read} and
 * {@code internal.list} submit their fetches to it.
 */
public final class FetchScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FetchScheduler.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 30;
    /** How often a waiting reader looks for fetches an executor dropped. */
    private static final long DROP_CHECK_MILLIS = 500;

    private static final Comparator<Job> ORDER =
            Comparator.comparing((Job job) -> job.priority).thenComparingLong(job -> job.sequence);

    private final int maxConcurrency;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final TimeSource time;
    private final AtomicLong sequence = new AtomicLong();
    private final ThreadLocal<Job> current = new ThreadLocal<>();
    private final ReferenceQueue<Runnable> dropped = new ReferenceQueue<>();
    // Guarded by this.
    private final PriorityQueue<Job> queue = new PriorityQueue<>(ORDER);
    private final Set<Job> running = new HashSet<>();
    private final Set<Job> backingOff = new HashSet<>();
    // Handed to the executor and not started yet; the references must stay reachable to be enqueued.
    private final Set<Handoff> handoffs = new HashSet<>();
    private boolean closed;

    /**
     * @param ownedExecutor the same executor when the scheduler owns it and must shut it down, else {@code null}
     * @param time the factory's ticker and scheduler: backoffs and readers' deadlines end through it
     */
    public FetchScheduler(int maxConcurrency, Executor executor, ExecutorService ownedExecutor, TimeSource time) {
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be positive, got " + maxConcurrency);
        }
        this.maxConcurrency = maxConcurrency;
        this.executor = requireNonNull(executor, "executor is null");
        this.ownedExecutor = ownedExecutor;
        this.time = requireNonNull(time, "time is null");
    }

    /** One GET (or anything that blocks on the network), told how it may be aborted. */
    @FunctionalInterface
    public interface Fetch {
        void run(FetchAbort abort);
    }

    /** A handle on a submitted fetch. */
    public interface Ticket {
        /**
         * Stops the fetch: removes it if it is still queued (its {@code abandon} then runs), aborts it if it runs
         * (it then fails on its own thread). {@code false} if it had already ended.
         */
        boolean cancel();

        /** Moves a queued prefetch up among the demand fetches: a reader now waits for it. */
        void promote();
    }

    /**
     * Queues {@code fetch}. Exactly one of {@code fetch} and {@code abandon} runs, once: {@code abandon} with the
     * reason when the fetch is cancelled before it starts, when the scheduler is closed (then on this thread)
     * or closes, and when the executor refuses or drops it.
     */
    public Ticket submit(FetchPriority priority, Fetch fetch, Consumer<Throwable> abandon) {
        return submit(priority, fetch, abandon, false);
    }

    /**
     * {@link #submit}, for a fetch that may wait out a backoff by throwing {@link BackOff} (its abort says it
     * {@linkplain FetchAbort#mayRunAgain may}): it is then run again after the delay, with the same abort, until it
     * returns. It must keep across its runs whatever it needs to go on.
     */
    public Ticket submitResumable(FetchPriority priority, Fetch fetch, Consumer<Throwable> abandon) {
        return submit(priority, fetch, abandon, true);
    }

    private Ticket submit(FetchPriority priority, Fetch fetch, Consumer<Throwable> abandon, boolean resumable) {
        Job job = new Job(
                requireNonNull(priority, "priority is null"),
                sequence.incrementAndGet(),
                requireNonNull(fetch, "fetch is null"),
                requireNonNull(abandon, "abandon is null"),
                resumable);
        boolean refused;
        synchronized (this) {
            refused = closed;
            if (refused) {
                job.state = JobState.DONE;
            } else {
                queue.add(job);
            }
        }
        if (refused) {
            abandon(job, new FactoryClosedException());
            return job;
        }
        dispatch();
        return job;
    }

    /** A request whose caller waits for its answer. */
    @FunctionalInterface
    public interface Call<T> {
        T run(FetchAbort abort) throws IOException;
    }

    /**
     * Runs {@code call} as one of this scheduler's fetches, so it counts against the concurrency limit and
     * waits its turn like any other, and waits for its answer on this thread. Its exception is rethrown as is;
     * an interrupt cancels it and throws {@link InterruptedIOException}. Never call it from a fetch: a fetch
     * must not wait for a slot of the scheduler it holds one of.
     */
    public <T> T call(FetchPriority priority, Call<T> call) throws IOException {
        requireNonNull(call, "call is null");
        if (current.get() != null) {
            throw new IllegalStateException("A fetch must not wait for another fetch of its own scheduler");
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        Ticket ticket = submitResumable(
                priority,
                abort -> {
                    try {
                        answer.complete(call.run(abort));
                    } catch (BackOff e) {
                        throw e; // run again after the wait: the answer is still to come
                    } catch (IOException | RuntimeException e) {
                        answer.completeExceptionally(e);
                    } catch (Error e) {
                        answer.completeExceptionally(e);
                        throw e;
                    }
                },
                answer::completeExceptionally);
        try {
            return await(answer, "a request");
        } catch (InterruptedIOException e) {
            ticket.cancel();
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException(cause);
        }
    }

    /**
     * Waits for {@code future} on a reader's thread: answers an interrupt with {@link InterruptedIOException}
     * (the interrupt flag stays set), and meanwhile looks for fetches an executor dropped, which would otherwise
     * never complete what they were to complete.
     */
    public <T> T await(CompletableFuture<T> future, String what) throws InterruptedIOException, ExecutionException {
        return awaitFuture(future, what);
    }

    /**
     * {@link #await}, giving up at {@code deadline} (a reading of the time source's ticker; {@link Long#MAX_VALUE}
     * for none) with a {@link TimeoutException}. The wait ends when the future completes or when the time source's
     * scheduler runs the task set for the deadline (which completes a copy of the future, not the future: others
     * may wait for it with deadlines of their own); a future done by then wins over the deadline.
     */
    public <T> T awaitUntil(CompletableFuture<T> future, String what, long deadline)
            throws InterruptedIOException, ExecutionException, TimeoutException {
        if (deadline == Long.MAX_VALUE || future.isDone()) {
            return awaitFuture(future, what);
        }
        if (time.passed(deadline)) {
            throw new TimeoutException(what);
        }
        TimeoutException expired = new TimeoutException(what);
        CompletableFuture<T> bounded = future.copy();
        TimeSource.Timer timer = time.scheduleAt(deadline, () -> bounded.completeExceptionally(expired));
        try {
            return awaitFuture(bounded, what);
        } catch (ExecutionException e) {
            if (e.getCause() != expired) {
                throw e;
            }
            if (future.isDone()) {
                return awaitFuture(future, what); // done just in time: take its answer
            }
            throw expired;
        } finally {
            timer.cancel();
        }
    }

    /** Waits with no deadline, looking for dropped fetches now and then (see the class note). */
    private <T> T awaitFuture(CompletableFuture<T> future, String what)
            throws InterruptedIOException, ExecutionException {
        while (true) {
            try {
                return future.get(DROP_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                reclaimDropped();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                InterruptedIOException interrupted =
                        new InterruptedIOException("Interrupted while waiting for " + what);
                interrupted.initCause(e);
                throw interrupted;
            }
        }
    }

    /**
     * Runs {@code task} once the fetch running on this thread has given its slot back, or now when this thread
     * runs no fetch of this scheduler: for completing a caller's futures, whose callbacks may read again.
     */
    public void afterSlot(Runnable task) {
        Job job = current.get();
        if (job == null) {
            task.run();
        } else {
            job.afterSlot.add(task);
        }
    }

    public int maxConcurrency() {
        return maxConcurrency;
    }

    /**
     * How many parallel parts a request planned now may be cut into, at most {@code cap}: parts pay only while
     * connections are idle, so the slots left free once every fetch running or waiting is counted twice (the slot it
     * holds, and one its stream's next request will want), shared among the {@code openStreams} streams of the
     * factory, halved, and 1 (no split) when that share is under two. A lone stream still cuts a small object or a
     * merged range into parts (8 of the default 16 slots). When many streams are open, each sends one GET per object
     * or range even while the others decode rather than fetch: their next requests are coming, and parts would only
     * queue behind them, costing everyone requests, CPU and connections.
     */
    public synchronized int partsAffordable(int cap, int openStreams) {
        int busy = running.size() + queue.size();
        return Math.max(1, Math.min(cap, (maxConcurrency - 2 * busy) / (2 * Math.max(1, openStreams))));
    }

    /** How many fetches hold a slot now (handed to the executor, or running). */
    public synchronized int runningFetches() {
        return running.size();
    }

    /** Ends the fetches the executor dropped without running them, so their slots come back. */
    public void reclaimDropped() {
        List<Job> lost = new ArrayList<>();
        for (Reference<? extends Runnable> reference; (reference = dropped.poll()) != null; ) {
            Handoff handoff = (Handoff) reference;
            synchronized (this) {
                if (handoffs.remove(handoff) && handoff.job.state == JobState.RUNNING) {
                    handoff.job.state = JobState.DONE;
                    running.remove(handoff.job);
                    notifyAll();
                    lost.add(handoff.job);
                }
            }
        }
        for (Job job : lost) {
            abandon(
                    job,
                    new FetchCancelledException(
                            "The fetch executor dropped a fetch without running it",
                            new RejectedExecutionException("dropped")));
        }
        if (!lost.isEmpty()) {
            dispatch();
        }
    }

    private void dispatch() {
        reclaimDropped();
        while (true) {
            Job next;
            Handoff handoff;
            JobRunner runner;
            synchronized (this) {
                if (running.size() >= maxConcurrency || queue.isEmpty()) {
                    return;
                }
                next = queue.poll();
                next.state = JobState.RUNNING;
                running.add(next);
                runner = new JobRunner(next);
                handoff = new Handoff(runner, next, dropped);
                handoffs.add(handoff);
                runner.handoff = handoff;
            }
            try {
                executor.execute(runner);
            } catch (RuntimeException | Error e) {
                // whatever the executor threw, this fetch will not run: give its slot back and end it
                synchronized (this) {
                    handoffs.remove(handoff);
                }
                handoff.clear();
                finished(next);
                abandon(next, new FetchCancelledException("The fetch executor refused a fetch: " + e, e));
            }
        }
    }

    private void run(Job job, Handoff handoff) {
        synchronized (this) {
            handoffs.remove(handoff);
            if (job.state != JobState.RUNNING) {
                return; // counted as dropped meanwhile (its task object was thought unreachable): it ended
            }
        }
        handoff.clear();
        current.set(job);
        BackOff backOff = null;
        try {
            job.fetch.run(job.abort);
        } catch (BackOff e) {
            if (!job.resumable) {
                throw new IllegalStateException("A fetch that may not run again backed off", e);
            }
            backOff = e;
        } finally {
            current.remove();
            // this run's deferred tasks, taken before the job is queued again: a fetch that backed off may run
            // again on another thread at once, and defer tasks of its own meanwhile (a ticket outlives its fetch,
            // too: a block's hooks, a stream's prefetch list; it lets go of what it ran)
            List<Runnable> deferred = job.afterSlot.isEmpty() ? List.of() : new ArrayList<>(job.afterSlot);
            job.afterSlot.clear();
            if (backOff == null) {
                finished(job);
            } else {
                backOff(job, backOff.delayNanos());
            }
            dispatch();
            for (Runnable task : deferred) {
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    LOG.warn("A completion callback failed after a fetch", e);
                }
            }
        }
    }

    /** Gives the slot of {@code job} back, and queues it again once {@code delayNanos} have passed. */
    private void backOff(Job job, long delayNanos) {
        boolean closing;
        boolean refused;
        synchronized (this) {
            running.remove(job);
            notifyAll();
            closing = closed;
            refused = closed || job.state != JobState.RUNNING || job.abort.isAborted();
            if (refused) {
                job.state = JobState.DONE;
            } else {
                job.state = JobState.BACKING_OFF;
                backingOff.add(job);
            }
        }
        if (refused) {
            abandon(
                    job,
                    closing
                            ? new FactoryClosedException()
                            : new FetchCancelledException("Fetch cancelled while it waited to be retried", null));
            return;
        }
        try {
            // the scheduler's task only requeues it: the fetch runs on the executor, as ever
            time.scheduler().schedule(() -> requeue(job), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // closed meanwhile: close() abandons what backs off, unless it found this one not yet backing off
            boolean mine;
            synchronized (this) {
                mine = backingOff.remove(job);
                if (mine) {
                    job.state = JobState.DONE;
                }
            }
            if (mine) {
                abandon(job, new FactoryClosedException());
            }
        }
    }

    private void requeue(Job job) {
        synchronized (this) {
            if (job.state != JobState.BACKING_OFF) {
                return; // cancelled or abandoned at close meanwhile: it has ended
            }
            backingOff.remove(job);
            job.state = JobState.QUEUED;
            queue.add(job);
        }
        dispatch();
    }

    /** How many fetches wait out a backoff now, holding no slot (for tests that decide an interleaving). */
    synchronized int backingOffFetches() {
        return backingOff.size();
    }

    private synchronized void finished(Job job) {
        job.state = JobState.DONE;
        running.remove(job);
        notifyAll();
    }

    private static void abandon(Job job, Throwable cause) {
        try {
            job.abandon.accept(cause);
        } catch (RuntimeException | Error e) {
            LOG.warn("Ending an abandoned fetch failed", e);
        }
    }

    /**
     * Abandons every queued fetch, aborts every running one, and waits for them to end: if the executor is the
     * scheduler's own, for its threads to end too. Never throws: fetches that do not end in time are logged.
     */
    @Override
    public void close() {
        List<Job> abandoned;
        List<Job> aborted;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            abandoned = new ArrayList<>(queue);
            abandoned.addAll(backingOff);
            queue.clear();
            backingOff.clear();
            abandoned.forEach(job -> job.state = JobState.DONE);
            aborted = new ArrayList<>(running);
        }
        for (Job job : abandoned) {
            abandon(job, new FactoryClosedException());
        }
        aborted.forEach(job -> job.abort.abort());
        try {
            if (ownedExecutor != null) {
                ownedExecutor.shutdownNow();
                if (!ownedExecutor.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    LOG.error("Fetch threads did not stop within {} s of close", CLOSE_TIMEOUT_SECONDS);
                }
            } else {
                awaitRunningFetches();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reclaimDropped();
    }

    private void awaitRunningFetches() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_TIMEOUT_SECONDS);
        while (true) {
            synchronized (this) {
                if (running.isEmpty()) {
                    return;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.error("{} fetches did not stop within {} s of close", running.size(), CLOSE_TIMEOUT_SECONDS);
                    return;
                }
                // bounded, so that fetches an executor dropped are found even when nothing else happens
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(DROP_CHECK_MILLIS)));
            }
            reclaimDropped(); // ends them properly (their abandon runs), outside the monitor
        }
    }

    private enum JobState {
        QUEUED,
        RUNNING,
        BACKING_OFF,
        DONE
    }

    /** The task handed to the executor: only the executor refers to it, so if it is dropped, it is collected. */
    private final class JobRunner implements Runnable {
        private final Job job;
        private Handoff handoff;

        JobRunner(Job job) {
            this.job = job;
        }

        @Override
        public void run() {
            FetchScheduler.this.run(job, handoff);
        }
    }

    /** Enqueued by the collector when a task handed to the executor became unreachable without running. */
    private static final class Handoff extends PhantomReference<Runnable> {
        private final Job job;

        Handoff(Runnable runner, Job job, ReferenceQueue<Runnable> queue) {
            super(runner, queue);
            this.job = job;
        }
    }

    private final class Job implements Ticket {
        private final long sequence;
        private final Fetch fetch;
        private final Consumer<Throwable> abandon;
        private final FetchAbort abort;
        private final boolean resumable;
        // Touched only by the thread running the fetch.
        private final List<Runnable> afterSlot = new ArrayList<>(0);
        // Guarded by the scheduler.
        private FetchPriority priority;
        private JobState state = JobState.QUEUED;

        Job(FetchPriority priority, long sequence, Fetch fetch, Consumer<Throwable> abandon, boolean resumable) {
            this.priority = priority;
            this.resumable = resumable;
            this.abort = new FetchAbort(priority == FetchPriority.PREFETCH, resumable);
            this.sequence = sequence;
            this.fetch = fetch;
            this.abandon = abandon;
        }

        @Override
        public boolean cancel() {
            JobState was;
            synchronized (FetchScheduler.this) {
                was = state;
                if (was == JobState.QUEUED || was == JobState.BACKING_OFF) {
                    queue.remove(this);
                    backingOff.remove(this);
                    state = JobState.DONE;
                }
            }
            switch (was) {
                case QUEUED -> abandon(this, new FetchCancelledException("Fetch cancelled before it started", null));
                case BACKING_OFF ->
                    abandon(this, new FetchCancelledException("Fetch cancelled while it waited to be retried", null));
                case RUNNING -> abort.abort();
                case DONE -> {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void promote() {
            synchronized (FetchScheduler.this) {
                if (state == JobState.QUEUED && priority != FetchPriority.DEMAND) {
                    queue.remove(this);
                    priority = FetchPriority.DEMAND;
                    queue.add(this);
                } else if (state == JobState.BACKING_OFF) {
                    priority = FetchPriority.DEMAND; // queued as one when its wait is over
                }
                abort.promoted(); // running or not: a reader waits for it now, so it must not be shed
            }
        }
    }
}
