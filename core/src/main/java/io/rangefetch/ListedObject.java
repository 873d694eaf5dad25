package io.rangefetch;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One object a {@link StreamFactory#list listing} found: where it is, its length, its ETag (quoted, as S3 gives
 * it) and when it was last modified. Opening it on the same factory sends no HEAD: the listing told the factory
 * its length and ETag. {@link #openOptions()} carries them to a factory that did not list it.
 */
public record ListedObject(S3Location location, long length, String etag, Instant lastModified) {

    public ListedObject {
        requireNonNull(location, "location is null");
        requireNonNull(etag, "etag is null");
        requireNonNull(lastModified, "lastModified is null");
        if (length < 0) {
            throw new IllegalArgumentException("Negative length " + length + " of " + location);
        }
    }

    /** Options that open exactly this version: its length and ETag. */
    public OpenOptions openOptions() {
        return OpenOptions.builder().length(length).etag(etag).build();
    }
}
