package io.rangefetch.internal.fetch;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs every GET of one factory. At most {@code maxConcurrency} run at once across all streams; the rest wait
 * in one queue where demand fetches (a reader is waiting) always come before prefetches, and equal priorities
 * go first come, first served. A queued fetch can be cancelled, as when its stream closes.
 *
 * <p>Fetches run on an executor the factory owns (named daemon threads, shut down by {@link #close()}) or on
 * one the caller supplies (left running). Never on the common pool. Thread-safe.
 */
public final class FetchScheduler implements AutoCloseable {
    private static final Comparator<QueuedFetch> ORDER =
            Comparator.comparing(QueuedFetch::priority).thenComparingLong(QueuedFetch::sequence);

    private final int maxConcurrency;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final AtomicLong sequence = new AtomicLong();
    // Guarded by this.
    private final PriorityQueue<QueuedFetch> queue = new PriorityQueue<>(ORDER);
    private int running;
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

    /** A handle on a submitted fetch. */
    public interface Ticket {
        /** Removes the fetch if it is still queued (its {@code abandon} then runs); {@code false} if it started. */
        boolean cancel();
    }

    /**
     * Queues {@code fetch}. If the scheduler is closed, or the executor refuses it, {@code abandon} runs with
     * the reason instead, on this thread.
     */
    public Ticket submit(FetchPriority priority, Runnable fetch, java.util.function.Consumer<Throwable> abandon) {
        QueuedFetch queued = new QueuedFetch(priority, sequence.incrementAndGet(), fetch, abandon);
        boolean refused;
        synchronized (this) {
            refused = closed;
            if (!refused) {
                queue.add(queued);
            }
        }
        if (refused) {
            abandon.accept(new CancellationException("The stream factory is closed"));
            return () -> false;
        }
        dispatch();
        return () -> cancel(queued);
    }

    public int maxConcurrency() {
        return maxConcurrency;
    }

    private boolean cancel(QueuedFetch queued) {
        boolean removed;
        synchronized (this) {
            removed = queue.remove(queued);
        }
        if (removed) {
            queued.abandon().accept(new CancellationException("Fetch cancelled before it started"));
        }
        return removed;
    }

    private void dispatch() {
        while (true) {
            QueuedFetch next;
            synchronized (this) {
                if (running >= maxConcurrency || queue.isEmpty()) {
                    return;
                }
                next = queue.poll();
                running++;
            }
            try {
                executor.execute(() -> run(next));
            } catch (RejectedExecutionException e) {
                synchronized (this) {
                    running--;
                }
                next.abandon().accept(e);
            }
        }
    }

    private void run(QueuedFetch fetch) {
        try {
            fetch.fetch().run();
        } finally {
            synchronized (this) {
                running--;
            }
            dispatch();
        }
    }

    /**
     * Abandons every queued fetch, then, if the executor is the scheduler's own, interrupts what runs and waits
     * for its threads to end.
     */
    @Override
    public void close() {
        List<QueuedFetch> abandoned;
        synchronized (this) {
            closed = true;
            abandoned = new ArrayList<>(queue);
            queue.clear();
        }
        for (QueuedFetch fetch : abandoned) {
            fetch.abandon().accept(new CancellationException("The stream factory is closed"));
        }
        if (ownedExecutor != null) {
            ownedExecutor.shutdownNow();
            try {
                if (!ownedExecutor.awaitTermination(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Fetch threads did not stop within 30 seconds of close");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private record QueuedFetch(FetchPriority priority, long sequence, Runnable fetch,
            java.util.function.Consumer<Throwable> abandon) {}
}
