package io.rangefetch.it;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A read on a thread of its own (a daemon, {@code identity-it-NAME}), so a test can watch it wait while it holds the
 * answers to another read's GETs ({@link HeldAnswers}). Every wait is bounded.
 */
final class BackgroundRead {
    private final FutureTask<byte[]> task;
    private final Thread thread;

    private BackgroundRead(String name, Callable<byte[]> read) {
        this.task = new FutureTask<>(requireNonNull(read, "read is null"));
        this.thread = new Thread(task, "identity-it-" + name);
        thread.setDaemon(true);
    }

    /** Starts {@code read} on a thread named after {@code name}. */
    static BackgroundRead start(String name, Callable<byte[]> read) {
        BackgroundRead background = new BackgroundRead(name, read);
        background.thread.start();
        return background;
    }

    /** The bytes read, waiting at most {@code limit}; an {@link AssertionError} if the read failed. */
    byte[] result(Duration limit) throws InterruptedException, TimeoutException {
        try {
            return task.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(thread.getName() + " failed", e.getCause());
        }
    }

    /**
     * How the read failed, which it must do within {@code limit} and while {@code hold} still holds the answers it
     * holds: a read that waits for them (it joined a held GET, or sent one of its own that was held) fails the test, and
     * so does one that was served bytes. On such a failure the held answers are let go, to tell what the read then got.
     */
    Throwable failureWhileHeld(HeldAnswers hold, Duration limit) throws InterruptedException {
        try {
            byte[] served = task.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError(thread.getName() + " was served " + served.length + " bytes");
        } catch (ExecutionException e) {
            assertThat(hold.isReleased()).as("the answers are still held").isFalse();
            return e.getCause();
        } catch (TimeoutException e) {
            hold.release();
            String outcome;
            try {
                outcome = "then was served " + task.get(limit.toMillis(), TimeUnit.MILLISECONDS).length + " bytes";
            } catch (ExecutionException failed) {
                outcome = "then failed: " + failed.getCause();
            } catch (TimeoutException stillWaiting) {
                outcome = "then still waited " + limit;
            }
            throw new AssertionError(thread.getName() + " was still reading " + limit
                    + " after it started, while only answers to another identity were held (it joined that identity's"
                    + " GET, or sent one under that identity's credentials), and " + outcome);
        }
    }

    /** Waits up to {@code limit} until the read waits (for bytes in flight): its thread parks. */
    void awaitWaiting(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            Thread.State state = thread.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
                return;
            }
            if (state == Thread.State.TERMINATED) {
                fail("%s ended before the held answers were let go", thread.getName());
            }
            if (System.nanoTime() - deadline > 0) {
                fail("%s did not wait within %s (it is %s)", thread.getName(), limit, state);
            }
            thread.join(10); // returns at once should the thread end; else looks again shortly
        }
    }

    /** Waits up to {@code limit} for the thread to end. */
    void join(Duration limit) throws InterruptedException {
        thread.join(limit.toMillis());
    }
}
