package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import java.net.URI;

/**
 * Where a reader under test sends its requests: in the runner, the shaping proxy in front of the S3 server,
 * so every reader sees the same modelled network and the proxy's ledger counts what each one sent.
 *
 * @param endpoint an {@code http://127.0.0.1:port} address, or a real S3 endpoint for runs against S3
 * @param pathStyle whether buckets go in the path (local servers) rather than the host name
 */
public record S3Target(
        URI endpoint, String region, String bucket, String accessKey, String secretKey, boolean pathStyle) {

    public S3Target {
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(region, "region is null");
        requireNonNull(bucket, "bucket is null");
        requireNonNull(accessKey, "accessKey is null");
        requireNonNull(secretKey, "secretKey is null");
    }

    /** {@code s3://bucket/key}, the location form every reader accepts. */
    public String uri(String key) {
        return "s3://" + bucket + "/" + key;
    }
}
