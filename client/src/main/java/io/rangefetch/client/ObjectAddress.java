package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * The object a request addresses: bucket and key, plus what S3 needs to pick or decrypt one version of it.
 *
 * @param versionId the S3 version id to read, or {@code null} for the current version
 * @param sseCustomerKey the SSE-C key the object was written with, or {@code null}
 */
public record ObjectAddress(String bucket, String key, String versionId, SseCustomerKey sseCustomerKey) {

    public ObjectAddress {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(key, "key is null");
    }

    public ObjectAddress(String bucket, String key) {
        this(bucket, key, null, null);
    }

    public Optional<String> version() {
        return Optional.ofNullable(versionId);
    }

    public Optional<SseCustomerKey> sseKey() {
        return Optional.ofNullable(sseCustomerKey);
    }

    /** {@code s3://bucket/key}, for messages. */
    public String uri() {
        return "s3://" + bucket + "/" + key;
    }

    @Override
    public String toString() {
        return versionId == null ? uri() : uri() + "?versionId=" + versionId;
    }
}
