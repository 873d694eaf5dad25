package io.rangefetch.it;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.S3Location;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * One object of the fault soak and every version it has had, so that whatever bytes a stream returns can be
 * checked against the versions they may come from. Versions keep one length, so that every read in bounds of one
 * is in bounds of all.
 *
 * <p>A version's content is published before it is written to the server and its ETag once the write returns:
 * a reader that sees the new version before the writer's call returns can still check its bytes. Thread-safe:
 * readers check while one writer overwrites.
 */
final class SoakObject {
    private final S3Location location;
    private final int size;
    private final List<byte[]> contents = new CopyOnWriteArrayList<>();
    private final List<String> etags = new CopyOnWriteArrayList<>();

    SoakObject(S3Location location, byte[] content, String etag) {
        this.location = requireNonNull(location, "location is null");
        this.size = content.length;
        contents.add(content);
        etags.add(requireNonNull(etag, "etag is null"));
    }

    S3Location location() {
        return location;
    }

    int size() {
        return size;
    }

    /** Versions written so far, or being written. */
    int versions() {
        return contents.size();
    }

    /** The newest version whose write has returned, and its ETag. */
    int newestWritten() {
        return etags.size() - 1;
    }

    String etag(int version) {
        return etags.get(version);
    }

    /**
     * Writes {@code content} as the next version with {@code put}, which returns its ETag; one writer at a time.
     */
    synchronized void overwrite(byte[] content, Function<byte[], String> put) {
        if (content.length != size) {
            throw new IllegalArgumentException("a version of " + size + " bytes expected, got " + content.length);
        }
        contents.add(content);
        etags.add(put.apply(content));
    }

    /**
     * Of {@code candidates}, the versions whose bytes at {@code position} are {@code bytes}; a null
     * {@code candidates} stands for every version there is.
     */
    BitSet matching(BitSet candidates, long position, byte[] bytes) {
        BitSet matching = new BitSet();
        int known = contents.size();
        for (int version = 0; version < known; version++) {
            if (candidates != null && !candidates.get(version)) {
                continue;
            }
            byte[] content = contents.get(version);
            if (position + bytes.length <= content.length
                    && Arrays.equals(bytes, 0, bytes.length, content, (int) position, (int) position + bytes.length)) {
                matching.set(version);
            }
        }
        return matching;
    }

    @Override
    public String toString() {
        return location + " (" + size + " bytes, " + contents.size() + " version(s))";
    }
}
