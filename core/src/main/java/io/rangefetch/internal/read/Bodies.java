package io.rangefetch.internal.read;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/** Reads GET bodies in order, refusing any that do not hold exactly the bytes that were asked for. */
final class Bodies {
    private static final int CHUNK_BYTES = 64 << 10;

    private Bodies() {}

    /** Refuses an answer that holds other bytes than {@code expected}. */
    static void checkRange(RangeGetRequest request, ObjectContent content, ByteRange expected) throws IOException {
        if (!content.range().equals(expected)) {
            throw new IOException(
                    "GET " + request.describe() + " answered range " + content.range() + " instead of " + expected);
        }
    }

    /**
     * An answer's body read in order, knowing where it is: {@link #position()} is the object offset of the next
     * body byte, so that a GET whose body broke can ask again from exactly there. Reads in chunks and moves the
     * position after each, so bytes stored before a failure count as received.
     */
    static final class Cursor {
        private final RangeGetRequest request;
        private final InputStream body;
        private final long end;
        private long position;

        Cursor(RangeGetRequest request, ObjectContent content) {
            this.request = request;
            this.body = content.body();
            this.position = content.range().start();
            this.end = content.range().end();
        }

        long position() {
            return position;
        }

        /** Reads and drops the body bytes before {@code target}. */
        void skipTo(long target) throws IOException {
            while (position < target) {
                long skipped = body.skip(target - position);
                if (skipped <= 0) {
                    if (body.read() < 0) {
                        throw endedEarly();
                    }
                    skipped = 1;
                }
                position += skipped;
            }
        }

        /** Reads the next {@code length} body bytes into {@code target} from {@code offset} on. */
        void into(byte[] target, int offset, int length) throws IOException {
            int done = 0;
            while (done < length) {
                int read = body.read(target, offset + done, Math.min(CHUNK_BYTES, length - done));
                if (read < 0) {
                    throw endedEarly();
                }
                done += read;
                position += read;
            }
        }

        /** Reads the next {@code length} body bytes into {@code target} from absolute index {@code index} on. */
        void into(ByteBuffer target, int index, int length) throws IOException {
            if (target.hasArray()) {
                into(target.array(), target.arrayOffset() + index, length);
                return;
            }
            byte[] chunk = new byte[Math.min(length, CHUNK_BYTES)];
            for (int done = 0; done < length; ) {
                int count = Math.min(chunk.length, length - done);
                int read = body.read(chunk, 0, count);
                if (read < 0) {
                    throw endedEarly();
                }
                target.put(index + done, chunk, 0, read);
                done += read;
                position += read;
            }
        }

        private EOFException endedEarly() {
            return new EOFException("GET " + request.describe() + " ended at byte " + position + " of the object, "
                    + "before the " + end + " its Content-Range promised (connection closed early)");
        }
    }
}
