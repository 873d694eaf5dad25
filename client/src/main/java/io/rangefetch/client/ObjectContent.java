package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import software.amazon.awssdk.http.Abortable;

/**
 * The answer to a ranged GET: the body as a stream, the range it holds (from {@code Content-Range}) and what
 * it tells about the object: its total length and its ETag. The receiver reads the body and closes it.
 */
public record ObjectContent(InputStream body, ByteRange range, ObjectMetadata metadata) implements Closeable {

    public ObjectContent {
        requireNonNull(body, "body is null");
        requireNonNull(range, "range is null");
        requireNonNull(metadata, "metadata is null");
        if (range.end() > metadata.length()) {
            throw new IllegalArgumentException("Range " + range + " ends past the object length " + metadata.length());
        }
    }

    @Override
    public void close() throws IOException {
        body.close();
    }

    /**
     * Drops the connection under the body, from any thread, so a read blocked on it fails at once; closing
     * instead would read the rest of the body to reuse the connection. Never throws.
     */
    public void abort() {
        if (body instanceof Abortable abortable) {
            abortable.abort();
        }
        try {
            body.close();
        } catch (IOException | RuntimeException e) {
            // the connection is gone either way; nothing is left to release
        }
    }
}
