package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One object a listing found: where it is, its length, its ETag (quoted, as S3 gives it) and when it was last
 * modified. It is both what an {@link ObjectClient} answers for each key of a ListObjectsV2 page and what the
 * factory's {@code list} hands its caller. Opening it on the factory that listed it sends no HEAD: the listing told
 * the factory its length and ETag; {@code OpenOptions.of(ListedObject)} carries them to a factory that did not.
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
}
