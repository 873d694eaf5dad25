package io.rangefetch.testing;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An executor for a factory's fetches that can tell a test when all of them have finished: a prefetch completes
 * on a fetch thread, and nothing else says it did. Tasks run on daemon threads of its own; close it after the
 * factory. Thread-safe.
 */
public final class QuiescentExecutor implements Executor, AutoCloseable {
    private static final long WAIT_SECONDS = 20;

    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "quiescent-executor");
        thread.setDaemon(true);
        return thread;
    });
    // Guarded by this.
    private int running;

    @Override
    public void execute(Runnable task) {
        requireNonNull(task, "task is null");
        synchronized (this) {
            running++;
        }
        try {
            threads.execute(() -> {
                try {
                    task.run();
                } finally {
                    finished();
                }
            });
        } catch (RuntimeException e) {
            finished();
            throw e;
        }
    }

    private synchronized void finished() {
        running--;
        notifyAll();
    }

    /**
     * Waits (bounded) until no task runs. A task that submits another before it ends keeps the executor busy, so
     * a chain of fetches is waited for whole.
     */
    public synchronized boolean awaitQuiet() throws InterruptedException {
        return awaitAtMost(0);
    }

    /** Waits (bounded) until at most {@code tasks} tasks run: the others, say, being held by the test. */
    public synchronized boolean awaitAtMost(int tasks) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (running > tasks) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    @Override
    public void close() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
