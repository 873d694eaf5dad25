package io.rangefetch.internal.fetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.events.GovernorChangeEvent;
import io.rangefetch.internal.time.TimeSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Limits the requests in flight to one bucket, for every stream of a factory (the EMRFS AIMD idea): a 503 SlowDown
 * lowers the limit, answers without one raise it again ({@link LoadTestedLimit}, on the concurrency-limits
 * library's {@code AbstractLimit}; 503s that keep coming when less is sent are taken for noise and left to
 * retries). Every GET and HEAD attempt holds a {@link Permit} from when it is sent until its body is read or it
 * failed; a retry's backoff holds none. Its answer counts toward the limit when its headers come
 * ({@link Permit#answered}): S3 decides a 503 there.
 *
 * <p><b>Demand first.</b> A demand request (a reader waits for it) waits for a place. A prefetch and a hedge never
 * wait: they get a place only when one is free and no demand request is waiting for one, else they are shed
 * ({@code null}); a shed prefetch gives its blocks back, and a reader that needs them later fetches them on
 * demand. So when the limit drops, speculation gives way first and demand reads keep their place.
 *
 * <p><b>Every wait ends</b>: with a place, when the request is aborted ({@link FetchCancelledException}), when the
 * thread is interrupted ({@link InterruptedIOException}, flag kept), or at the caller's deadline. Waiters wake
 * when a place is given back or the limit grows, when their fetch is aborted (a callback on its abort), and at their
 * deadline (a task on the factory's {@link TimeSource} scheduler): no wait is timed on real time. The answers' times
 * the limit learns from are the time source's ticker's.
 *
 * <p>Thread-safe. One lock guards the count in flight and the waiters; the limit itself is the
 * {@link LoadTestedLimit}'s (its own lock, never taken while this one is held, so the two are never nested). The
 * wake-ups of the abort callback and of the deadline task take this lock alone, on the aborting thread or the
 * scheduler's; a wake-up that runs on the waiter's own thread (an abort already done, a scheduler that refused the
 * task) finds the lock reentrant.
 *
 * <p><b>Public because</b> {@code internal.read}'s {@code AttemptSender} and {@code RetryingSender} take a permit from
 * it before each request.
 */
public final class ThrottleGovernor {
    private final String bucket;
    private final LoadTestedLimit limit;
    private final TimeSource time;
    private final int minLimit;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition placeFreed = lock.newCondition();
    // Guarded by lock.
    private int inFlight;
    private int demandWaiting;
    // The limit last reported to events; written by whichever thread the limit tells of a change.
    private volatile int lastLimit;

    ThrottleGovernor(String bucket, ThrottleSettings settings, TimeSource time) {
        this.bucket = requireNonNull(bucket, "bucket is null");
        this.limit = new LoadTestedLimit(settings);
        this.time = requireNonNull(time, "time is null");
        this.minLimit = settings.minConcurrency();
        this.lastLimit = limit.getLimit();
        limit.notifyOnChange(newLimit -> {
            limitChanged(newLimit);
            wakeWaiters();
        });
    }

    private void limitChanged(int newLimit) {
        int previous = lastLimit;
        lastLimit = newLimit;
        GovernorChangeEvent event = new GovernorChangeEvent();
        if (event.shouldCommit()) {
            event.bucket = bucket;
            event.previousLimit = previous;
            event.limit = newLimit;
            lock.lock();
            try {
                event.inFlight = inFlight;
            } finally {
                lock.unlock();
            }
            event.commit();
        }
    }

    /** The limit now. */
    public int limit() {
        return limit.getLimit();
    }

    /** The share of 503s taken for noise now (0 until the limit's test found some). */
    double noiseFloor() {
        return limit.noiseFloor();
    }

    /** Whether 503s from this bucket are taken for noise now: sending less does not make them rarer. */
    public boolean takes503sForNoise() {
        return limit.noiseFloor() > 0;
    }

    /**
     * Whether a request answered 503 waits no longer than a first retry before it is sent again, instead of a wait
     * that doubles with each 503: when the 503s are taken for noise (waiting longer does not make them rarer), and
     * while the limit is above its minimum, for there the governor is what sends less (it lowered the limit, and
     * the retry waits for a place under it like any request); waits that double on top would slow the reads twice
     * for one 503. At the lowest limit only the wait can send less, and it doubles, as S3 asks (TCP likewise
     * shrinks its window first and backs its timer off only when the window is at its least).
     */
    public boolean retriesWaitShort() {
        return takes503sForNoise() || limit() > minLimit;
    }

    /** Requests holding a place now. */
    public int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a demand request waits for a place now (for tests that decide an interleaving). */
    boolean hasDemandWaiting() {
        lock.lock();
        try {
            return demandWaiting > 0;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A place for a demand request, waiting for one as long as needed up to {@code deadline} (a reading of the time
     * source's ticker; {@link Long#MAX_VALUE} for none).
     */
    public Permit acquire(FetchAbort abort, long deadline) throws IOException {
        lock.lock();
        try {
            if (inFlight < limit.getLimit()) {
                return taken();
            }
            demandWaiting++;
            AtomicBoolean expired = new AtomicBoolean();
            TimeSource.Timer timer = TimeSource.Timer.NONE;
            CompletableFuture<Void> wakeOnAbort = null;
            try {
                while (inFlight >= limit.getLimit()) {
                    if (abort.isAborted()) {
                        throw new FetchCancelledException(
                                "A request to bucket " + bucket
                                        + " was cancelled while it waited for the throttle governor",
                                null);
                    }
                    if (expired.get() || time.passed(deadline)) {
                        throw new IOException("No place for a request to bucket " + bucket + " under its throttle "
                                + "governor (limit " + limit.getLimit() + ", " + inFlight + " in flight) before "
                                + "the deadline");
                    }
                    if (wakeOnAbort == null) {
                        // set up once the wait is certain: an abort or the deadline wakes it, as a freed place does
                        wakeOnAbort = abort.whenAborted().thenRun(this::wakeWaiters);
                        timer = time.scheduleAt(deadline, () -> {
                            expired.set(true);
                            wakeWaiters();
                        });
                        continue; // either may have run on this thread already
                    }
                    placeFreed.await();
                }
                return taken();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                InterruptedIOException interrupted = new InterruptedIOException(
                        "Interrupted while waiting for the throttle governor of bucket " + bucket);
                interrupted.initCause(e);
                throw interrupted;
            } finally {
                demandWaiting--;
                timer.cancel();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A place for a prefetch or a hedge if one is free and no demand request waits; else {@code null}. */
    public Permit tryAcquire() {
        lock.lock();
        try {
            return demandWaiting == 0 && inFlight < limit.getLimit() ? taken() : null;
        } finally {
            lock.unlock();
        }
    }

    private Permit taken() {
        inFlight++;
        return new Permit(time.nanos(), inFlight);
    }

    private void wakeWaiters() {
        lock.lock();
        try {
            placeFreed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "ThrottleGovernor[" + bucket + ", limit " + limit.getLimit() + "]";
    }

    /**
     * One request's place; given back exactly once (later calls do nothing). Its answer counts once toward the
     * limit: when its headers came without a 503 ({@link #answered}), or else when it is given back.
     */
    public final class Permit {
        private final long sent;
        private final int inFlightWhenSent;
        private final AtomicBoolean released = new AtomicBoolean();
        private final AtomicBoolean counted = new AtomicBoolean();

        private Permit(long sent, int inFlightWhenSent) {
            this.sent = sent;
            this.inFlightWhenSent = inFlightWhenSent;
        }

        /**
         * Its headers came without a 503: counts toward raising the limit now, while the place stays held until
         * the body is read. S3 answers a 503 at once, a GET's 200 only once its body is read; counting each at its
         * headers keeps the share of 503s among the answers true while bodies are still coming (else the first
         * answers of a scan are its 503s), and a trial's answers come in a first byte's time, not a body's.
         */
        public void answered() {
            if (!released.get() && counted.compareAndSet(false, true)) {
                limit.onSample(sent, time.nanos() - sent, loadBeside(), false);
            }
        }

        /** Answered without throttling: counts toward raising the limit (unless {@link #answered} did). */
        public void succeeded() {
            release(Outcome.SUCCEEDED);
        }

        /** Answered 503: lowers the limit (once for a burst). */
        public void throttled() {
            release(Outcome.THROTTLED);
        }

        /** Failed some other way, or was abandoned: says nothing about the bucket's load. */
        public void ignored() {
            release(Outcome.IGNORED);
        }

        /** What runs beside it, at either end of its life. */
        private int loadBeside() {
            lock.lock();
            try {
                return Math.max(inFlightWhenSent, inFlight);
            } finally {
                lock.unlock();
            }
        }

        private void release(Outcome outcome) {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            int load;
            lock.lock();
            try {
                load = Math.max(inFlightWhenSent, inFlight);
                inFlight--;
                placeFreed.signalAll();
            } finally {
                lock.unlock();
            }
            if (outcome != Outcome.IGNORED && counted.compareAndSet(false, true)) {
                long now = time.nanos();
                limit.onSample(sent, now - sent, load, outcome == Outcome.THROTTLED);
            }
        }
    }

    private enum Outcome {
        SUCCEEDED,
        THROTTLED,
        IGNORED
    }

    /**
     * One governor per bucket, made when a bucket is first asked for and kept for the factory's
     * life (a factory reads from a handful of buckets; S3 throttles per prefix within one, and a bucket-wide limit
     * is the cautious reading of that). When throttling is off there is no governor: {@link #forBucket} answers
     * {@code null}. Thread-safe.
     *
     * <p>Public, as the governor is: {@code internal.read.ReadEngine} makes it, and {@code internal.read.RetryingSender}
     * takes each bucket's governor from it.
     */
    public static final class PerBucket {
        private final ThrottleSettings settings;
        private final TimeSource time; // null when off: no governor is ever made
        private final Map<String, ThrottleGovernor> byBucket = new ConcurrentHashMap<>();

        /** @param time what the governors measure answers with and end their waits through */
        public PerBucket(ThrottleSettings settings, TimeSource time) {
            this.settings = requireNonNull(settings, "settings is null");
            this.time = requireNonNull(time, "time is null");
        }

        private PerBucket() {
            this.settings = ThrottleSettings.off();
            this.time = null;
        }

        public static PerBucket off() {
            return new PerBucket();
        }

        /** The bucket's governor, or {@code null} when throttling is off. */
        public ThrottleGovernor forBucket(String bucket) {
            if (!settings.enabled()) {
                return null;
            }
            return byBucket.computeIfAbsent(bucket, name -> new ThrottleGovernor(name, settings, time));
        }

        /** The bucket's limit now; -1 when no governor limits it (off, or no request sent to it yet). */
        public int limit(String bucket) {
            ThrottleGovernor governor = byBucket.get(bucket);
            return governor == null ? -1 : governor.limit();
        }

        /** The lowest limit now among the buckets' governors; -1 when there is none. */
        public int lowestLimit() {
            return byBucket.values().stream()
                    .mapToInt(ThrottleGovernor::limit)
                    .min()
                    .orElse(-1);
        }
    }
}
