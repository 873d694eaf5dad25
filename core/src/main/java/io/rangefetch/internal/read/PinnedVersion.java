package io.rangefetch.internal.read;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One version of the object a stream reads: its ETag and length, fixed for the version's life, and whether
 * reads have started on it. A stream publishes its current version through one field ({@link ObjectVersion})
 * (this is one of that field's states) and a read reads that field once per attempt, so it never sees the ETag
 * of one version with the length of another.
 *
 * <p>The count of reads started on it decides whether the stream may leave it for a newer version without
 * failing (see {@link ObjectVersion}): it counts up to two (one reader, or more), and {@link #RETIRED} once the
 * stream has left it, after which no read can start on it. Thread-safe.
 */
final class PinnedVersion implements ObjectVersion.State {
    private static final int RETIRED = -1;
    private static final int MANY = 2;

    private final String etag;
    private final long length;
    private final AtomicInteger reads;

    /**
     * @param etag the version's ETag; {@code null} only for an empty object learned from a 416 (it has no bytes
     *     that could be mixed, so it needs no pin)
     * @param reads how many reads already started on it (1 when the read that learned it counts)
     */
    PinnedVersion(String etag, long length, int reads) {
        if (length < 0 || (etag == null && length != 0) || reads < 0 || reads > MANY) {
            throw new IllegalArgumentException(
                    "Invalid version: ETag " + etag + ", length " + length + ", reads " + reads);
        }
        this.etag = etag;
        this.length = length;
        this.reads = new AtomicInteger(reads);
    }

    String etag() {
        return etag;
    }

    long length() {
        return length;
    }

    boolean isEmpty() {
        return length == 0;
    }

    /** A read starts on this version; {@code false} if the stream has left it already (read the state again). */
    boolean start() {
        for (int count = reads.get(); count != RETIRED; count = reads.get()) {
            if (count >= MANY || reads.compareAndSet(count, count + 1)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Retires this version if exactly {@code started} reads started on it (those of the read that found it
     * changed): no other read can have bytes of it then, and none can start on it after.
     */
    boolean retireIfStartedBy(int started) {
        return reads.compareAndSet(started, RETIRED);
    }

    @Override
    public String toString() {
        return "ETag " + etag + ", " + length + " bytes";
    }
}
