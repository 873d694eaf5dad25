package io.rangefetch.internal.fetch;

import io.rangefetch.client.ObjectContent;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How a running fetch is stopped from another thread. A fetch blocked reading a response body does not notice
 * an interrupt (socket reads ignore it), so the scheduler aborts the response itself: the fetch
 * {@linkplain #attach attaches} the body it reads, and {@link #abort()} cuts that connection, which makes the
 * blocked read fail at once. A fetch still waiting for response headers is aborted as soon as they arrive.
 *
 * <p>Thread-safe: the fetch thread attaches, any thread aborts; whichever comes second does the cutting, and
 * a response is cut at most once.
 */
public final class FetchAbort {
    private final AtomicReference<ObjectContent> attached = new AtomicReference<>();
    private volatile boolean aborted;

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
    }

    private void cut() {
        ObjectContent content = attached.getAndSet(null);
        if (content != null) {
            content.abort();
        }
    }
}
