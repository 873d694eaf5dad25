package io.rangefetch.testing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.testing.InMemoryObjectClient.Request;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** Holds GET bodies of {@link InMemoryObjectClient} before their first byte; see its {@code holdBodies}. */
public final class BodyHold {
    private static final long WAIT_SECONDS = 20;

    private final Predicate<Request> matching;
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger held = new AtomicInteger();
    private final List<Request> heldRequests = new CopyOnWriteArrayList<>();
    private final List<Request> closedRequests = new CopyOnWriteArrayList<>();
    private final AtomicInteger closedWhileHeld = new AtomicInteger();

    BodyHold(Predicate<Request> matching) {
        this.matching = requireNonNull(matching, "matching is null");
    }

    /** Lets every held body, and every later one, go on. */
    public void release() {
        released.countDown();
    }

    /** How many bodies this hold caught so far. */
    public int held() {
        return held.get();
    }

    /** The requests whose bodies this hold caught, in order. */
    public List<Request> heldRequests() {
        return List.copyOf(heldRequests);
    }

    /**
     * The requests whose bodies were closed (aborted) before they were released; a body whose hold ran out (nobody
     * released it in time) is not counted.
     */
    public List<Request> requestsClosedWhileHeld() {
        return List.copyOf(closedRequests);
    }

    /** How many bodies were closed (aborted) before they were released. */
    public int closedWhileHeld() {
        return closedWhileHeld.get();
    }

    /** Waits (bounded) until at least {@code count} bodies have been caught. */
    public boolean awaitHeld(int count) throws InterruptedException {
        return awaitAtLeast(held, count);
    }

    /** Waits (bounded) until at least {@code count} bodies were closed while held. */
    public boolean awaitClosedWhileHeld(int count) throws InterruptedException {
        return awaitAtLeast(closedWhileHeld, count);
    }

    private boolean awaitAtLeast(AtomicInteger counter, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        synchronized (this) {
            while (counter.get() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
        return true;
    }

    InputStream wrap(Request request, InputStream body) {
        if (!matching.test(request)) {
            return body;
        }
        heldRequests.add(request);
        synchronized (this) {
            held.incrementAndGet();
            notifyAll();
        }
        return new HeldBody(request, body);
    }

    private final class HeldBody extends WaitingBody {
        private final CountDownLatch closed = new CountDownLatch(1);
        private final Request request;
        private boolean passed;
        // the hold gave up waiting for a release: a close after that is no abort
        private volatile boolean expired;

        HeldBody(Request request, InputStream body) {
            super(body);
            this.request = request;
        }

        @Override
        protected void awaitGo() throws IOException {
            if (passed) {
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            try {
                while (released.getCount() > 0) {
                    if (closed.await(10, TimeUnit.MILLISECONDS)) {
                        throw new IOException("Body closed while held (connection aborted)");
                    }
                    if (System.nanoTime() > deadline) {
                        expired = true;
                        throw new IOException("Body held for more than " + WAIT_SECONDS + " s: nobody released it");
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while held", e);
            }
            if (closed.getCount() == 0) {
                // closed and then released: a cut connection stays cut
                throw new IOException("Body closed while held (connection aborted)");
            }
            passed = true;
        }

        @Override
        public void close() throws IOException {
            if (released.getCount() > 0 && closed.getCount() > 0 && !expired) {
                closedRequests.add(request);
                synchronized (BodyHold.this) {
                    closedWhileHeld.incrementAndGet();
                    BodyHold.this.notifyAll();
                }
            }
            closed.countDown();
            super.close();
        }
    }
}
