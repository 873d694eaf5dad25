package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.fetch.FetchScheduler;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A factory's streams opened and not yet closed, which share its idle connections: how many parallel parts a
 * request planned now may be cut into. Thread-safe.
 */
final class OpenStreams {
    private final FetchScheduler scheduler;
    private final AtomicInteger open = new AtomicInteger();

    OpenStreams(FetchScheduler scheduler) {
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
    }

    /** A stream of the factory opened; {@link #closed} once when it closes. */
    void opened() {
        open.incrementAndGet();
    }

    void closed() {
        open.decrementAndGet();
    }

    /**
     * How many parallel parts a request planned now may be cut into, at most {@code cap}: a share of the idle
     * connections among the open streams ({@link FetchScheduler#partsAffordable}).
     */
    int partsAffordable(int cap) {
        return scheduler.partsAffordable(cap, open.get());
    }
}
