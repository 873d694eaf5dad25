package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

/** A bucket and a key. {@link #parse} reads {@code s3://}, {@code s3a://} and {@code s3n://} locations. */
public record S3Location(String bucket, String key) {

    public S3Location {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(key, "key is null");
        if (bucket.isEmpty()) {
            throw new IllegalArgumentException("Bucket is empty");
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("Key is empty in bucket " + bucket);
        }
    }

    /**
     * Parses {@code s3://bucket/key} (also {@code s3a://} and {@code s3n://}). The key is taken as written:
     * no percent-decoding, a query or fragment is rejected rather than guessed at.
     */
    public static S3Location parse(String location) {
        requireNonNull(location, "location is null");
        int schemeEnd = location.indexOf("://");
        String scheme = schemeEnd < 0 ? "" : location.substring(0, schemeEnd);
        if (!scheme.equals("s3") && !scheme.equals("s3a") && !scheme.equals("s3n")) {
            throw new IllegalArgumentException("Not an S3 location (expected s3://bucket/key): " + location);
        }
        String path = location.substring(schemeEnd + 3);
        int slash = path.indexOf('/');
        if (slash <= 0 || slash == path.length() - 1) {
            throw new IllegalArgumentException("S3 location needs a bucket and a key (s3://bucket/key): " + location);
        }
        if (path.indexOf('?') >= 0 || path.indexOf('#') >= 0) {
            throw new IllegalArgumentException("S3 location must not carry a query or fragment: " + location);
        }
        return new S3Location(path.substring(0, slash), path.substring(slash + 1));
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key;
    }
}
