package io.rangefetch.testing.server;

import java.net.URI;
import java.util.Optional;
import javax.net.ssl.TrustManager;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;

/**
 * An S3 endpoint the integration suites run against: a server this JVM started on 127.0.0.1 (MinIO,
 * S3Proxy) or one the environment names ({@link ExternalS3Endpoint}). Clients reach it with path-style
 * addressing and static credentials; {@link S3Clients} builds them.
 *
 * <p>{@link #close()} stops what was started (process, threads, temporary files); for an endpoint this
 * JVM does not own it does nothing. Implementations are thread-safe once started.
 */
public interface S3Server extends AutoCloseable {

    /** Base URL of the S3 API, for example {@code http://127.0.0.1:41234}. */
    URI endpoint();

    String accessKey();

    String secretKey();

    /**
     * What a client must trust to reach an {@code https} endpoint whose certificate no public authority
     * signed, such as {@link MinioServer#startTls()}'s; empty when the JDK's default trust will do (plain
     * HTTP, or a public endpoint). {@link S3Clients} hands them to every client it builds that can take
     * them.
     */
    default Optional<TrustManager[]> trustManagers() {
        return Optional.empty();
    }

    /** Signing region; local servers accept any, so they say {@code us-east-1}. */
    default String region() {
        return "us-east-1";
    }

    /** Short backend name for messages and test names: {@code minio}, {@code s3proxy}, {@code external}. */
    String name();

    /**
     * Creates {@code bucket} unless it exists already (and is ours): a suite may call this every time it
     * starts. A HEAD comes first so an endpoint that lets us read a bucket but not create one still works.
     */
    default void createBucket(String bucket) {
        try (S3Client s3 = S3Clients.sync(this)) {
            try {
                s3.headBucket(request -> request.bucket(bucket));
                return;
            } catch (NoSuchBucketException absent) {
                // fall through and create it
            }
            try {
                s3.createBucket(request -> request.bucket(bucket));
            } catch (BucketAlreadyOwnedByYouException createdMeanwhile) {
                // another suite won the race: the bucket is there, which is all we asked for
            }
        }
    }

    /**
     * The bucket a suite should use, ready for writes. Local servers create {@code preferredName}; an
     * external endpoint answers the bucket its environment names, if any, since bucket names there are
     * global and creating them is rarely allowed.
     */
    default String testBucket(String preferredName) {
        createBucket(preferredName);
        return preferredName;
    }

    /**
     * Whether a GET racing an overwrite of its object always answers one version whole: that version's
     * ETag with that version's bytes, as S3 does. A suite that overwrites objects while others read them
     * checks every byte against the version the ETag names only where this holds.
     */
    default boolean overwritesAtomically() {
        return true;
    }

    /**
     * This server reached at another address, such as a proxy in front of it: same credentials, region,
     * buckets and trust managers, but clients built with {@link S3Clients} send their requests to {@code
     * endpoint}. Closing the view does nothing: the server stays open and stays the caller's to close.
     */
    default S3Server reachedAt(URI endpoint) {
        return new S3ServerAtEndpoint(this, endpoint);
    }

    /** Stops the server and releases what it holds; does not throw checked exceptions. */
    @Override
    void close();
}
