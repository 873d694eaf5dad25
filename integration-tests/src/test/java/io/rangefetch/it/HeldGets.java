package io.rangefetch.it;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * Holds the GETs whose {@code Range} header a test picks on the thread that sends them, just before they go on
 * the wire, until the test releases them. A test thereby decides when a fetch may go on instead of betting on
 * how long it takes: a held GET keeps its fetch slot busy for as long as the test needs, and GETs held together
 * prove they were sent in parallel.
 *
 * <p>For the SDK's sync client, whose interceptors run on the calling thread (Rangefetch's fetch thread). A GET
 * held longer than {@value #LIMIT_SECONDS} seconds fails, so a test that forgets to release cannot hang; an
 * interrupt (the factory closing) fails it at once. Thread-safe.
 */
final class HeldGets implements ExecutionInterceptor {
    private static final long LIMIT_SECONDS = 10;

    private final Predicate<String> range;
    private final Semaphore held = new Semaphore(0);
    private final CountDownLatch released = new CountDownLatch(1);

    /** Holds every GET whose {@code Range} header (as {@code bytes=first-last}) {@code range} accepts. */
    HeldGets(Predicate<String> range) {
        this.range = requireNonNull(range, "range is null");
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        if (!(context.request() instanceof GetObjectRequest get) || get.range() == null || !range.test(get.range())) {
            return;
        }
        held.release();
        try {
            if (!released.await(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        "GET " + get.range() + " was held " + LIMIT_SECONDS + " s and never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("GET " + get.range() + " interrupted while held", e);
        }
    }

    /** Waits until {@code count} GETs are held at once (none goes on before {@link #release()}). */
    void awaitHeld(int count) throws InterruptedException {
        assertThat(held.tryAcquire(count, LIMIT_SECONDS, TimeUnit.SECONDS))
                .as("%d GETs held at once", count)
                .isTrue();
        held.release(count);
    }

    /** Lets every held GET go on, and every later one pass. */
    void release() {
        released.countDown();
    }
}
