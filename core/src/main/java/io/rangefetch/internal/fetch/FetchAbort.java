package io.rangefetch.internal.fetch;

import io.rangefetch.client.ObjectClient.ObjectContent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How a running fetch is stopped from another thread. A fetch blocked reading a response body does not notice
 * an interrupt (socket reads ignore it), so the scheduler aborts the response itself: the fetch
 * {@linkplain #attach attaches} the body it reads, and {@link #abort()} cuts that connection, which makes the
 * blocked read fail at once. A fetch still waiting for response headers is aborted as soon as they arrive.
 *
 * <p>It also tells the fetch what it is for now: a prefetch nobody waits for yet is {@linkplain #isSpeculative
 * speculative}, and stops being so when a reader starts waiting for it (the scheduler promotes it). A fetch that
 * {@linkplain #mayRunAgain may run again} waits out a retry's backoff by throwing {@link BackOff} and is run anew
 * after it, with this same handle: what its attempts came to is kept {@linkplain #retryState here} meanwhile.
 *
 * <p>Thread-safe: the fetch thread attaches, any thread aborts; whichever comes second does the cutting, and
 * a response is cut at most once.
 *
 * <p><b>Public because</b> {@code internal.read}'s senders attach each response to it and check it, and
 * {@code internal.list.ParallelListing} hands it to them with each page it asks for.
 */
public final class FetchAbort {
    private final AtomicReference<ObjectContent> attached = new AtomicReference<>();
    private final CompletableFuture<Void> whenAborted = new CompletableFuture<>();
    private volatile boolean aborted;
    private volatile boolean speculative;
    private final boolean mayRunAgain;
    // Touched only by the fetch, whose runs the scheduler's monitor orders one after another.
    private Object retryState;

    FetchAbort(boolean speculative) {
        this(speculative, false);
    }

    FetchAbort(boolean speculative, boolean mayRunAgain) {
        this.speculative = speculative;
        this.mayRunAgain = mayRunAgain;
    }

    /** A handle for a fetch run outside any scheduler: demand, never aborted by anyone but its holder. */
    public static FetchAbort standalone() {
        return new FetchAbort(false);
    }

    /** Whether the fetch is a prefetch no reader waits for (yet): it may be shed under throttling. */
    public boolean isSpeculative() {
        return speculative;
    }

    void promoted() {
        speculative = false;
    }

    /** Whether the fetch may throw {@link BackOff} to wait out a backoff off its slot, and be run again after. */
    public boolean mayRunAgain() {
        return mayRunAgain;
    }

    /** What the fetch kept of its attempts for its next run; {@code null} at first. */
    public Object retryState() {
        return retryState;
    }

    public void retryState(Object state) {
        this.retryState = state;
    }

    /** Completes when the fetch is aborted: for waits that have no response to cut yet. */
    public CompletableFuture<Void> whenAborted() {
        return whenAborted;
    }

    /** Whether someone aborted the fetch: a failure it then sees is the abort, not a network fault. */
    public boolean isAborted() {
        return aborted;
    }

    /** Registers the response being read; cuts it at once if the fetch was aborted while it waited for it. */
    public void attach(ObjectContent content) {
        attached.set(content);
        if (aborted) {
            cut();
        }
    }

    void abort() {
        aborted = true;
        cut();
        whenAborted.complete(null);
    }

    private void cut() {
        ObjectContent content = attached.getAndSet(null);
        if (content != null) {
            content.abort();
        }
    }
}
