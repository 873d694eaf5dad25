package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/** One object of a listing page: its key, length, ETag (as S3 quotes it) and last-modified time. */
public record ListEntry(String key, long size, String etag, Instant lastModified) {

    public ListEntry {
        requireNonNull(key, "key is null");
        requireNonNull(etag, "etag is null");
        requireNonNull(lastModified, "lastModified is null");
        if (size < 0) {
            throw new IllegalArgumentException("Negative size " + size + " of key " + key);
        }
    }
}
