package io.rangefetch.client;

import java.io.IOException;

/**
 * The server answered with an error status that none of the more specific exceptions covers (403, 500, 503, ...):
 * its status code tells whether trying again can help (500, 502, 503 and 504 can: see {@link #isTransient()}).
 * The message names the request: bucket, key and range.
 */
public class HttpStatusException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int statusCode;

    public HttpStatusException(String message, int statusCode, Throwable cause) {
        super(message, cause);
        this.statusCode = statusCode;
    }

    public int statusCode() {
        return statusCode;
    }

    /** 503: S3's throttling answer (SlowDown). */
    public boolean isThrottling() {
        return statusCode == 503;
    }

    /** Whether the same request may well succeed if sent again: 500, 502, 503, 504. */
    public boolean isTransient() {
        return statusCode == 500 || statusCode == 502 || statusCode == 503 || statusCode == 504;
    }
}
