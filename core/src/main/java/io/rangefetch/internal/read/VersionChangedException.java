package io.rangefetch.internal.read;

import java.io.IOException;

/**
 * The object changed under a stream that could not move to the new version: a read had started on the old one,
 * or the caller named the ETag. The public layer reports it as {@code ObjectChangedException}.
 */
public final class VersionChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String bucket;
    private final String key;
    private final String expectedEtag;
    private final String currentEtag;

    VersionChangedException(String bucket, String key, String expectedEtag, String currentEtag, Throwable cause) {
        super(
                "s3://" + bucket + "/" + key + " changed: the stream reads ETag " + expectedEtag + ", the object has "
                        + (currentEtag == null ? "another" : currentEtag),
                cause);
        this.bucket = bucket;
        this.key = key;
        this.expectedEtag = expectedEtag;
        this.currentEtag = currentEtag;
    }

    /** The same failure, thrown anew: one instance is not thrown on several threads. */
    VersionChangedException copy() {
        return new VersionChangedException(bucket, key, expectedEtag, currentEtag, this);
    }

    public String bucket() {
        return bucket;
    }

    public String key() {
        return key;
    }

    public String expectedEtag() {
        return expectedEtag;
    }

    /** The object's ETag now, or {@code null} when it was not learned. */
    public String currentEtag() {
        return currentEtag;
    }
}
