package io.rangefetch.testing.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Buffered reading from a channel that serves both halves of a message: heads are parsed a byte at a
 * time through the {@link InputStream} methods, and bodies are handed out in place as views of the
 * buffer ({@link #next(long)}), so forwarding a body copies bytes only from one socket into the buffer
 * and from the buffer into the other socket. With a direct buffer that is the whole cost of a forwarded
 * byte: socket streams would add two copies through the Java heap. Not thread-safe.
 */
final class ChannelInput extends InputStream {

    private static final ByteBuffer END = ByteBuffer.allocate(0);

    private final ReadableByteChannel channel;
    private final ByteBuffer buffer; // position..limit: read from the channel, not yet consumed

    ChannelInput(ReadableByteChannel channel, int bufferSize) {
        this.channel = channel;
        this.buffer = ByteBuffer.allocateDirect(bufferSize).flip();
    }

    @Override
    public int read() throws IOException {
        if (!buffer.hasRemaining() && !fill()) {
            return -1;
        }
        return buffer.get() & 0xff;
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (!buffer.hasRemaining() && !fill()) {
            return -1;
        }
        int n = Math.min(length, buffer.remaining());
        buffer.get(bytes, offset, n);
        return n;
    }

    /**
     * Up to {@code max} (positive) bytes as a view of the buffer, valid until the next read; empty at the
     * end of the stream. Blocks only when nothing is buffered.
     */
    ByteBuffer next(long max) throws IOException {
        if (!buffer.hasRemaining() && !fill()) {
            return END;
        }
        int n = (int) Math.min(max, buffer.remaining());
        ByteBuffer view = buffer.slice(buffer.position(), n);
        buffer.position(buffer.position() + n);
        return view;
    }

    /**
     * Adds to the buffer what the channel has ready, without waiting (the channel must be non-blocking
     * for the call): bytes already buffered stay, and later reads see them first. Returns false at the
     * end of the stream.
     */
    boolean readAvailable() throws IOException {
        buffer.compact();
        try {
            return channel.read(buffer) >= 0;
        } finally {
            buffer.flip();
        }
    }

    /** Whether the buffer has no room left: {@link #readAvailable()} can add nothing until bytes are read. */
    boolean full() {
        return buffer.remaining() == buffer.capacity();
    }

    /** Does not close the channel: its connection owns it. */
    @Override
    public void close() {}

    private boolean fill() throws IOException {
        buffer.clear();
        int read;
        do {
            read = channel.read(buffer); // 0 only from a non-blocking channel; ours block
        } while (read == 0);
        buffer.flip();
        return read > 0;
    }
}
