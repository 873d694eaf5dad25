package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongConsumer;

/** Tells a listener how far into the stream reading has got, after every read. */
final class PositionReportingInputStream extends FilterInputStream {

    private final LongConsumer listener;
    private long position;

    PositionReportingInputStream(InputStream in, LongConsumer listener) {
        super(requireNonNull(in, "in is null"));
        this.listener = requireNonNull(listener, "listener is null");
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
            advance(1);
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
            advance(n);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = super.skip(n);
        advance(skipped);
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false; // a reset would move the position back without telling the listener
    }

    private void advance(long bytes) {
        position += bytes;
        listener.accept(position);
    }
}
