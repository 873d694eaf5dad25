package io.rangefetch.internal.fetch;

import java.io.IOException;

/**
 * A fetch was stopped before it delivered: cancelled while queued, aborted while it ran, refused because its
 * factory closed, or dropped by an executor. The public layer tells the caller which object it concerns.
 *
 * <p><b>Public because</b> {@code internal.read} throws and translates it, and {@code io.rangefetch.ReadErrors} tells a
 * closed factory's cancellation by it.
 */
public class FetchCancelledException extends IOException {
    private static final long serialVersionUID = 1L;

    public FetchCancelledException(String message, Throwable cause) {
        super(message, cause);
    }
}
