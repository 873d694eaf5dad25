package io.rangefetch.internal.cache;

import static java.util.Objects.requireNonNull;

import java.util.Comparator;

/**
 * One version of one object: what cached bytes are keyed by. Bytes of different ETags never share a key, so a
 * stream pinned to one version cannot be served bytes of another.
 */
public record ObjectId(String bucket, String key, String etag) implements Comparable<ObjectId> {
    private static final Comparator<ObjectId> ORDER =
            Comparator.comparing(ObjectId::bucket).thenComparing(ObjectId::key).thenComparing(ObjectId::etag);

    public ObjectId {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(key, "key is null");
        requireNonNull(etag, "etag is null");
    }

    @Override
    public int compareTo(ObjectId other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key + " (ETag " + etag + ")";
    }
}
