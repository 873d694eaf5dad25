package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.internal.time.TimeSource;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.http.Abortable;

/**
 * Cuts a body that stalls: one that has given no byte for the between-bytes timeout. A blocked socket read
 * notices no interrupt and may wait for as long as the operating system keeps the connection, so a body read
 * is {@linkplain #watch watched} while it is read: each read that returns bytes marks progress (a reading of the
 * factory's {@link TimeSource} ticker), and a task on its scheduler looks at every watched body about four times per
 * timeout, cutting ({@link ObjectContent#abort()}) those that made none for longer than the timeout by that ticker. The read then fails, and the GET path, seeing the watch {@linkplain Watch#timedOut()
 * timed out}, treats it as a timeout to resume from, not as an abort.
 *
 * <p>The checks run only while a body is watched: the first watch starts them, and a check that finds none left
 * stops them, so an idle factory's scheduler has nothing to do for it and can let its thread go (a factory an engine
 * never closes keeps no thread for it).
 *
 * <p>Thread-safe: the watched set is concurrent, a watch's progress mark is volatile, and cutting a body from
 * the scheduler's thread is what {@link ObjectContent#abort()} is for. Adding a watch and stopping the checks on an
 * empty set happen under this object's lock, so a body is never added just as the checks stop.
 */
final class BodyWatchdog {
    private final ScheduledExecutorService timer;
    private final long timeoutNanos;
    private final TimeSource time;
    private final Set<Watch> watched = ConcurrentHashMap.newKeySet();
    // Guarded by this: the running checks, null while nothing is watched.
    private ScheduledFuture<?> checking;

    /**
     * @param time the ticker progress is marked with and the scheduler the checks run on
     * @param timeout the between-bytes timeout; zero watches nothing
     */
    BodyWatchdog(TimeSource time, Duration timeout) {
        this.timeoutNanos = requireNonNull(timeout, "timeout is null").toNanos();
        this.time = requireNonNull(time, "time is null");
        this.timer = timeoutNanos > 0 ? time.scheduler() : null;
    }

    private BodyWatchdog() {
        this.timeoutNanos = 0;
        this.time = null;
        this.timer = null;
    }

    /** Watches nothing. */
    static BodyWatchdog off() {
        return new BodyWatchdog();
    }

    /** Watches {@code content} until the returned watch is closed; read the watch's content, not the original. */
    Watch watch(ObjectContent content) {
        Watch watch = new Watch(content);
        if (timer != null) {
            synchronized (this) {
                watched.add(watch);
                if (checking == null) {
                    long period = Math.max(TimeUnit.MILLISECONDS.toNanos(5), timeoutNanos / 4);
                    try {
                        checking = timer.scheduleWithFixedDelay(this::check, period, period, TimeUnit.NANOSECONDS);
                    } catch (RejectedExecutionException e) {
                        // the factory is closing: its reads are being stopped, and nothing is left to watch for
                    }
                }
            }
        }
        return watch;
    }

    /** Whether checks are scheduled now (for tests). */
    synchronized boolean checking() {
        return checking != null;
    }

    /** Runs on the scheduler's thread. */
    void check() {
        long now = now();
        for (Watch watch : watched) {
            if (now - watch.lastProgress > timeoutNanos) {
                watch.timedOut = true;
                watched.remove(watch);
                watch.original.abort();
            }
        }
        synchronized (this) {
            if (watched.isEmpty() && checking != null) {
                checking.cancel(false); // the next watch starts them again
                checking = null;
            }
        }
    }

    private long now() {
        return time == null ? 0 : time.nanos();
    }

    /** One body being read. */
    final class Watch implements AutoCloseable {
        private final ObjectContent original;
        private final ObjectContent content;
        private volatile long lastProgress;
        private volatile boolean timedOut;

        private Watch(ObjectContent original) {
            this.original = original;
            this.lastProgress = now();
            // unwatched (timeout 0), the body is read as it is: no progress to mark
            this.content = timeoutNanos == 0
                    ? original
                    : new ObjectContent(new Progress(original.body()), original.range(), original.metadata());
        }

        /** The body to read: the same bytes, each read marking progress (when watched). */
        ObjectContent content() {
            return content;
        }

        /** Whether the watchdog cut the body for want of bytes. */
        boolean timedOut() {
            return timedOut;
        }

        Duration timeout() {
            return Duration.ofNanos(timeoutNanos);
        }

        @Override
        public void close() {
            watched.remove(this);
        }

        private final class Progress extends FilterInputStream implements Abortable {
            Progress(InputStream body) {
                super(body);
            }

            @Override
            public int read() throws IOException {
                int read = super.read();
                lastProgress = now();
                return read;
            }

            @Override
            public int read(byte[] bytes, int offset, int length) throws IOException {
                int read = in.read(bytes, offset, length);
                lastProgress = now();
                return read;
            }

            @Override
            public long skip(long count) throws IOException {
                long skipped = in.skip(count);
                lastProgress = now();
                return skipped;
            }

            @Override
            public void abort() {
                original.abort();
            }
        }
    }
}
