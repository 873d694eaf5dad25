package io.rangefetch;

import java.io.IOException;

/**
 * The object was overwritten after this stream had returned bytes of an earlier version. The stream will not
 * mix versions: reopen it to read the new one.
 */
public class ObjectChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String bucket;
    private final String key;
    private final String expectedEtag;
    private final String currentEtag;

    public ObjectChangedException(String bucket, String key, String expectedEtag, String currentEtag, Throwable cause) {
        super(
                "s3://" + bucket + "/" + key + " changed while it was being read: this stream is pinned to ETag "
                        + expectedEtag + " but the object now has ETag "
                        + (currentEtag == null ? "(unknown)" : currentEtag)
                        + "; reopen the stream to read the new version",
                cause);
        this.bucket = bucket;
        this.key = key;
        this.expectedEtag = expectedEtag;
        this.currentEtag = currentEtag;
    }

    public String bucket() {
        return bucket;
    }

    public String key() {
        return key;
    }

    /** The ETag of the version this stream was reading. */
    public String expectedEtag() {
        return expectedEtag;
    }

    /** The object's ETag now, or {@code null} when it could not be learned (the object may be gone). */
    public String currentEtag() {
        return currentEtag;
    }
}
