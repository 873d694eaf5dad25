package io.rangefetch.internal.fetch;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs every GET of one factory. At most {@code maxConcurrency} run at once across all streams; the rest wait
 * in one queue where demand fetches (a reader is waiting) always come before prefetches, and equal priorities
 * go first come, first served. A prefetch a reader starts waiting for is promoted to a demand fetch, so it
 * stops queueing behind speculation.
 *
 * <p>A fetch can be stopped through its {@link Ticket}: a queued one never starts, a running one is aborted
 * (see {@link FetchAbort}), as when the stream that asked for a prefetch closes.
 *
 * <p>Fetches run on an executor the factory owns (named daemon threads, shut down by {@link #close()}) or on
 * one the caller supplies (left running). Never on the common pool. Thread-safe.
 */
public final class FetchScheduler implements AutoCloseable {
    private static final long CLOSE_TIMEOUT_SECONDS = 30;
    private static final Comparator<Job> ORDER =
            Comparator.comparing((Job job) -> job.priority).thenComparingLong(job -> job.sequence);

    private final int maxConcurrency;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final AtomicLong sequence = new AtomicLong();
    // Guarded by this.
    private final PriorityQueue<Job> queue = new PriorityQueue<>(ORDER);
    private final Set<Job> running = new HashSet<>();
    private boolean closed;

    /**
     * @param ownedExecutor the same executor when the scheduler owns it and must shut it down, else {@code null}
     */
    public FetchScheduler(int maxConcurrency, Executor executor, ExecutorService ownedExecutor) {
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be positive, got " + maxConcurrency);
        }
        this.maxConcurrency = maxConcurrency;
        this.executor = requireNonNull(executor, "executor is null");
        this.ownedExecutor = ownedExecutor;
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
     * Queues {@code fetch}. If the scheduler is closed, or the executor refuses it, {@code abandon} runs with
     * the reason instead, on this thread.
     */
    public Ticket submit(FetchPriority priority, Fetch fetch, Consumer<Throwable> abandon) {
        Job job = new Job(requireNonNull(priority, "priority is null"), sequence.incrementAndGet(),
                requireNonNull(fetch, "fetch is null"), requireNonNull(abandon, "abandon is null"));
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
            abandon.accept(new CancellationException("The stream factory is closed"));
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
     * an interrupt aborts it.
     */
    public <T> T call(FetchPriority priority, Call<T> call) throws IOException {
        requireNonNull(call, "call is null");
        CompletableFuture<T> answer = new CompletableFuture<>();
        Ticket ticket = submit(priority, abort -> {
            try {
                answer.complete(call.run(abort));
            } catch (IOException | RuntimeException e) {
                answer.completeExceptionally(e);
            } catch (Error e) {
                answer.completeExceptionally(e);
                throw e;
            }
        }, answer::completeExceptionally);
        try {
            return answer.get();
        } catch (InterruptedException e) {
            ticket.cancel();
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while waiting for a request");
            interrupted.initCause(e);
            throw interrupted;
        } catch (CancellationException e) {
            throw new IOException("Request cancelled: " + e.getMessage(), e);
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

    public int maxConcurrency() {
        return maxConcurrency;
    }

    private void dispatch() {
        while (true) {
            Job next;
            synchronized (this) {
                if (running.size() >= maxConcurrency || queue.isEmpty()) {
                    return;
                }
                next = queue.poll();
                next.state = JobState.RUNNING;
                running.add(next);
            }
            try {
                executor.execute(() -> run(next));
            } catch (RejectedExecutionException e) {
                finished(next);
                next.abandon.accept(e);
            }
        }
    }

    private void run(Job job) {
        try {
            job.fetch.run(job.abort);
        } finally {
            finished(job);
            dispatch();
        }
    }

    private synchronized void finished(Job job) {
        job.state = JobState.DONE;
        running.remove(job);
        notifyAll();
    }

    /**
     * Abandons every queued fetch, aborts every running one, and waits for them to end: if the executor is the
     * scheduler's own, for its threads to end too.
     */
    @Override
    public void close() {
        List<Job> abandoned;
        List<Job> aborted;
        synchronized (this) {
            closed = true;
            abandoned = new ArrayList<>(queue);
            queue.clear();
            abandoned.forEach(job -> job.state = JobState.DONE);
            aborted = new ArrayList<>(running);
        }
        for (Job job : abandoned) {
            job.abandon.accept(new CancellationException("The stream factory is closed"));
        }
        aborted.forEach(job -> job.abort.abort());
        try {
            if (ownedExecutor != null) {
                ownedExecutor.shutdownNow();
                if (!ownedExecutor.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(
                            "Fetch threads did not stop within " + CLOSE_TIMEOUT_SECONDS + " seconds of close");
                }
            } else {
                awaitRunningFetches();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void awaitRunningFetches() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_TIMEOUT_SECONDS);
        while (!running.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException(running.size() + " fetches did not stop within "
                        + CLOSE_TIMEOUT_SECONDS + " seconds of close");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    private enum JobState {
        QUEUED,
        RUNNING,
        DONE
    }

    private final class Job implements Ticket {
        private final long sequence;
        private final Fetch fetch;
        private final Consumer<Throwable> abandon;
        private final FetchAbort abort = new FetchAbort();
        // Guarded by the scheduler.
        private FetchPriority priority;
        private JobState state = JobState.QUEUED;

        Job(FetchPriority priority, long sequence, Fetch fetch, Consumer<Throwable> abandon) {
            this.priority = priority;
            this.sequence = sequence;
            this.fetch = fetch;
            this.abandon = abandon;
        }

        @Override
        public boolean cancel() {
            JobState was;
            synchronized (FetchScheduler.this) {
                was = state;
                if (was == JobState.QUEUED) {
                    queue.remove(this);
                    state = JobState.DONE;
                }
            }
            switch (was) {
                case QUEUED -> abandon.accept(new CancellationException("Fetch cancelled before it started"));
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
                }
            }
        }
    }
}
