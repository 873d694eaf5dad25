package io.rangefetch.client;

import java.io.IOException;

/**
 * The server answered with an error status (403, 412, 416, 500, 503, ...), other than the 404 that is a
 * {@code FileNotFoundException}. Its status code tells what it means to the engine: 412 is the {@code If-Match} ETag
 * no longer matching ({@link #isPreconditionFailed()}), which the layers above turn into a silent move to the new
 * version or an {@code ObjectChangedException}; 416 is a range starting at or past the end of the object
 * ({@link #isRangeNotSatisfiable()}); 500, 502, 503 and 504 may succeed if sent again ({@link #isTransient()}).
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

    /** 412: the object no longer has the ETag the request named in {@code If-Match}. */
    public boolean isPreconditionFailed() {
        return statusCode == 412;
    }

    /** 416: the requested range starts at or past the end of the object. */
    public boolean isRangeNotSatisfiable() {
        return statusCode == 416;
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
