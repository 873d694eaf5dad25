package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;

/**
 * A Rangefetch session's factory and the bucket it reads, for workloads that use what only Rangefetch offers
 * (listing many locations, opening what was listed); the session owns the factory.
 */
public record RangefetchAccess(StreamFactory factory, String bucket) {

    public RangefetchAccess {
        requireNonNull(factory, "factory is null");
        requireNonNull(bucket, "bucket is null");
    }

    /** {@code key} in the session's bucket. */
    public S3Location location(String key) {
        return new S3Location(bucket, requireNonNull(key, "key is null"));
    }
}
