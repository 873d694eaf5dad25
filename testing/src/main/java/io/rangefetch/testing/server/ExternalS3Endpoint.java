package io.rangefetch.testing.server;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * An S3 endpoint named by the environment, for running the suites against a server this build does not
 * start (another S3-compatible store, or S3 itself):
 *
 * <ul>
 *   <li>{@code RANGEFETCH_S3_ENDPOINT}: the endpoint URL (required);
 *   <li>{@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}: static credentials (required);
 *   <li>{@code AWS_REGION}: signing region, {@code us-east-1} if unset;
 *   <li>{@code RANGEFETCH_S3_BUCKET}: a bucket to use instead of creating one per suite.
 * </ul>
 *
 * Closing it does nothing: the endpoint is not ours to stop.
 */
public final class ExternalS3Endpoint implements S3Server {

    public static final String ENDPOINT_VARIABLE = "RANGEFETCH_S3_ENDPOINT";
    public static final String BUCKET_VARIABLE = "RANGEFETCH_S3_BUCKET";

    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    private final String region;
    private final Optional<String> bucket;

    private ExternalS3Endpoint(
            URI endpoint, String accessKey, String secretKey, String region, Optional<String> bucket) {
        this.endpoint = endpoint;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.region = region;
        this.bucket = bucket;
    }

    /**
     * An endpoint given explicitly, for tools that take it from their command line.
     *
     * @param bucket a bucket to use as is (never created), if any
     */
    public static ExternalS3Endpoint of(
            URI endpoint, String accessKey, String secretKey, String region, Optional<String> bucket) {
        return new ExternalS3Endpoint(
                requireNonNull(endpoint, "endpoint is null"),
                requireNonNull(accessKey, "accessKey is null"),
                requireNonNull(secretKey, "secretKey is null"),
                requireNonNull(region, "region is null"),
                requireNonNull(bucket, "bucket is null"));
    }

    /** Whether {@code RANGEFETCH_S3_ENDPOINT} is set. */
    public static boolean configured() {
        return nonBlank(System.getenv(), ENDPOINT_VARIABLE).isPresent();
    }

    /**
     * Reads the endpoint from the environment.
     *
     * @throws IllegalStateException if {@code RANGEFETCH_S3_ENDPOINT} or the credentials are missing
     */
    public static ExternalS3Endpoint fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    static ExternalS3Endpoint fromEnvironment(Map<String, String> env) {
        URI endpoint = URI.create(nonBlank(env, ENDPOINT_VARIABLE)
                .orElseThrow(() -> new IllegalStateException(ENDPOINT_VARIABLE + " is not set")));
        String accessKey = required(env, "AWS_ACCESS_KEY_ID");
        String secretKey = required(env, "AWS_SECRET_ACCESS_KEY");
        String region = nonBlank(env, "AWS_REGION").orElse("us-east-1");
        return new ExternalS3Endpoint(endpoint, accessKey, secretKey, region, nonBlank(env, BUCKET_VARIABLE));
    }

    @Override
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public String accessKey() {
        return accessKey;
    }

    @Override
    public String secretKey() {
        return secretKey;
    }

    @Override
    public String region() {
        return region;
    }

    @Override
    public String name() {
        return "external";
    }

    /** The bucket {@code RANGEFETCH_S3_BUCKET} names, if set. */
    public Optional<String> bucket() {
        return bucket;
    }

    /** {@code RANGEFETCH_S3_BUCKET} when set (used as is, never created), else {@code preferredName}. */
    @Override
    public String testBucket(String preferredName) {
        if (bucket.isPresent()) {
            return bucket.get();
        }
        createBucket(preferredName);
        return preferredName;
    }

    @Override
    public void close() {
        // not ours to stop
    }

    @Override
    public String toString() {
        return "external S3 endpoint " + endpoint;
    }

    private static String required(Map<String, String> env, String name) {
        return nonBlank(env, name)
                .orElseThrow(() -> new IllegalStateException(
                        name + " is not set; " + ENDPOINT_VARIABLE + " needs static credentials"));
    }

    private static Optional<String> nonBlank(Map<String, String> env, String name) {
        return Optional.ofNullable(env.get(name)).filter(value -> !value.isBlank());
    }
}
