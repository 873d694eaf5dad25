package io.rangefetch.internal.cache;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.identity.AccessIdentity;
import java.util.Comparator;

/**
 * One version of one object as one identity fetched it: what cached bytes are keyed by. Bytes of different ETags
 * never share a key, so a stream pinned to one version cannot be served bytes of another; bytes fetched under
 * different identities (credentials, SSE-C key) never share a key either, so a stream is never served what another
 * principal, or the holder of another key, fetched.
 *
 * <p><b>Public because</b> {@code internal.read} ({@code ObjectVersion}, {@code FirstFetch}, {@code ObjectRead}) keys
 * the blocks it claims and inserts by it.
 */
public record ObjectId(String bucket, String key, String etag, AccessIdentity identity)
        implements Comparable<ObjectId> {
    private static final Comparator<ObjectId> ORDER = Comparator.comparing(ObjectId::bucket)
            .thenComparing(ObjectId::key)
            .thenComparing(ObjectId::etag)
            .thenComparing(ObjectId::identity);

    public ObjectId {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(key, "key is null");
        requireNonNull(etag, "etag is null");
        requireNonNull(identity, "identity is null");
    }

    @Override
    public int compareTo(ObjectId other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key + " (ETag " + etag + ", " + identity + ")";
    }
}
