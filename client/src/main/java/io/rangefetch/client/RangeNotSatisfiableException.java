package io.rangefetch.client;

import java.io.IOException;

/** The server answered 416: the requested range starts at or past the end of the object. */
public class RangeNotSatisfiableException extends IOException {
    private static final long serialVersionUID = 1L;

    public RangeNotSatisfiableException(String message, Throwable cause) {
        super(message, cause);
    }
}
