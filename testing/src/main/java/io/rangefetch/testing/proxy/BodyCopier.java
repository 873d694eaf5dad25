package io.rangefetch.testing.proxy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.ByteBuffer;

/**
 * Copies one message body from a connection to a sink, framing included and unchanged, while parsing
 * the framing to know where the body ends. The sink learns which bytes are payload and which are chunk
 * framing, so the ledger can count body bytes exactly. Payload goes to the sink in place, as views of
 * the input's buffer.
 *
 * <p>A copy may stop early after a number of payload bytes: that is how faults cut a body in the
 * middle. Stateless.
 */
final class BodyCopier {

    /** Receives a body's bytes in order; a buffer is valid only during the call. */
    @FunctionalInterface
    interface Sink {
        void accept(ByteBuffer bytes, boolean payload) throws IOException;
    }

    static final Sink DISCARD = (bytes, payload) -> {};

    private BodyCopier() {}

    /**
     * Copies the body {@code framing} describes from {@code in} to {@code sink}, stopping once {@code
     * payloadLimit} payload bytes went through.
     *
     * @return true if the whole body was copied, false if the limit stopped it first
     * @throws EOFException if the connection ends before the body does
     */
    static boolean copy(BodyFraming framing, ChannelInput in, Sink sink, long payloadLimit) throws IOException {
        return switch (framing.kind()) {
            case NONE -> true;
            case LENGTH -> copyExactly(framing.length(), in, sink, payloadLimit) == framing.length();
            case UNTIL_CLOSE -> copyUntilClose(in, sink, payloadLimit);
            case CHUNKED -> copyChunks(in, sink, payloadLimit);
        };
    }

    /** Copies up to {@code length} payload bytes, fewer if the limit is lower; returns how many. */
    private static long copyExactly(long length, ChannelInput in, Sink sink, long payloadLimit) throws IOException {
        long wanted = Math.min(length, payloadLimit);
        long copied = 0;
        while (copied < wanted) {
            ByteBuffer bytes = in.next(wanted - copied);
            if (!bytes.hasRemaining()) {
                throw new EOFException("body ended after " + copied + " of " + length + " bytes");
            }
            copied += bytes.remaining();
            sink.accept(bytes, true);
        }
        return copied;
    }

    private static boolean copyUntilClose(ChannelInput in, Sink sink, long payloadLimit) throws IOException {
        long copied = 0;
        while (copied < payloadLimit) {
            ByteBuffer bytes = in.next(payloadLimit - copied);
            if (!bytes.hasRemaining()) {
                return true;
            }
            copied += bytes.remaining();
            sink.accept(bytes, true);
        }
        return false;
    }

    private static boolean copyChunks(ChannelInput in, Sink sink, long payloadLimit) throws IOException {
        long copied = 0;
        ByteArrayOutputStream framing = new ByteArrayOutputStream(64);
        while (true) {
            framing.reset();
            long size = chunkSize(MessageHead.readLine(in, framing, false));
            if (size == 0) {
                // the last chunk, then trailer fields up to an empty line
                while (!MessageHead.readLine(in, framing, false).isEmpty()) {
                    // each trailer line is already in framing
                }
                sink.accept(ByteBuffer.wrap(framing.toByteArray()), false);
                return true;
            }
            sink.accept(ByteBuffer.wrap(framing.toByteArray()), false);
            long chunkCopied = copyExactly(size, in, sink, payloadLimit - copied);
            copied += chunkCopied;
            if (chunkCopied < size) {
                return false;
            }
            framing.reset();
            if (!MessageHead.readLine(in, framing, false).isEmpty()) {
                throw new ProtocolException("chunk of " + size + " bytes not followed by CRLF");
            }
            sink.accept(ByteBuffer.wrap(framing.toByteArray()), false);
        }
    }

    private static long chunkSize(String line) throws ProtocolException {
        int extensions = line.indexOf(';');
        String hex = (extensions < 0 ? line : line.substring(0, extensions)).trim();
        try {
            long size = Long.parseLong(hex, 16);
            if (size < 0) {
                throw new ProtocolException("negative chunk size: " + line);
            }
            return size;
        } catch (NumberFormatException e) {
            throw new ProtocolException("malformed chunk size line: " + line);
        }
    }
}
