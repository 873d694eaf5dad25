package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

/**
 * An object on the server, with what an engine knows of it from a listing or a table's manifests before it
 * opens it: the length, and the ETag as S3 returns it (quoted).
 */
public record StoredObject(String key, long length, String etag) {

    public StoredObject {
        requireNonNull(key, "key is null");
        requireNonNull(etag, "etag is null");
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " for " + key);
        }
    }
}
