package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

/** What Rangefetch needs to know about one version of an object: its length and its ETag. */
public record ObjectMetadata(long length, String etag) {

    public ObjectMetadata {
        if (length < 0) {
            throw new IllegalArgumentException("Negative object length: " + length);
        }
        requireNonNull(etag, "etag is null");
    }
}
