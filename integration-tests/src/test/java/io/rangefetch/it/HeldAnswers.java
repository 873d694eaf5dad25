package io.rangefetch.it;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Holds the answers to the requests a test picks, once they have come back and before the SDK hands them to the
 * caller, until the test releases them: the request has reached the server (and been allowed), but the fetch that
 * sent it has not got its bytes yet. A test thereby keeps a GET in flight for as long as it needs, with no timing
 * bet: whatever another stream does meanwhile happens while that GET is in flight.
 *
 * <p>For the SDK's sync client, whose interceptors run on the thread that sends (Rangefetch's fetch thread). Holds
 * nothing until {@link #arm()}ed; once {@link #release()}d, holds nothing more. An answer held longer than
 * {@value #LIMIT_SECONDS} seconds fails its request, so a test that forgets to release cannot hang; an interrupt (the
 * factory closing) fails it at once. Thread-safe.
 */
final class HeldAnswers implements ExecutionInterceptor {
    private static final long LIMIT_SECONDS = 30;

    private final Predicate<SdkHttpRequest> picks;
    private final Semaphore held = new Semaphore(0);
    private final AtomicInteger heldInAll = new AtomicInteger();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean armed;

    /** Holds the answer to every request {@code picks} accepts, once armed. */
    HeldAnswers(Predicate<SdkHttpRequest> picks) {
        this.picks = requireNonNull(picks, "picks is null");
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        if (!armed || released.getCount() == 0 || !picks.test(context.httpRequest())) {
            return;
        }
        heldInAll.incrementAndGet();
        held.release();
        try {
            if (!released.await(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("The answer to " + describe(context.httpRequest()) + " was held "
                        + LIMIT_SECONDS + " s and never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(
                    "Interrupted while the answer to " + describe(context.httpRequest()) + " was held", e);
        }
    }

    private static String describe(SdkHttpRequest request) {
        return request.method() + " " + request.encodedPath();
    }

    /** From now on, holds what it picks. */
    void arm() {
        armed = true;
    }

    /** Waits up to {@code seconds} until {@code count} answers are held at once; whether they are. */
    boolean awaitHeld(int count, long seconds) throws InterruptedException {
        if (!held.tryAcquire(count, seconds, TimeUnit.SECONDS)) {
            return false;
        }
        held.release(count);
        return true;
    }

    /** How many answers were held in all. */
    int heldInAll() {
        return heldInAll.get();
    }

    /** Whether {@link #release()} was called. */
    boolean isReleased() {
        return released.getCount() == 0;
    }

    /** Lets every held answer go on, and every later one pass. */
    void release() {
        released.countDown();
    }
}
