package io.rangefetch.client;

import java.io.IOException;

/**
 * The server answered 412: the object no longer has the ETag the request named in {@code If-Match}. The
 * layers above turn this into a silent move to the new version or an {@code ObjectChangedException}.
 */
public class PreconditionFailedException extends IOException {
    private static final long serialVersionUID = 1L;

    public PreconditionFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
