package io.rangefetch.testing.proxy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * The one way a proxy connection sends bytes to its client, so that every byte passes the first-byte
 * gate, the rate caps and the ledger.
 *
 * <p>The gate holds a response's first byte until the model's delay has passed since its request was
 * fully received; interim responses ({@code 100 Continue}) pass at once, as they are part of receiving
 * the request. Caps are token buckets (one per connection, one shared) spent in slices much smaller
 * than their burst, so a capped transfer is smooth rather than a burst and a pause. Uncapped bytes go
 * out in whatever size they came, which keeps the unshaped proxy fast.
 *
 * <p>Bytes are counted in the ledger just before the write that sends them, so a client never holds a
 * byte the ledger has not counted. Used by its connection's thread only.
 */
final class ShapedClientOutput {

    private static final int SLICE_BYTES = 16 * 1024;

    private final WritableByteChannel out;
    private final ProxyLedger ledger;
    private TokenBucket connectionBucket; // replaced when a response starts under a different rate

    // the response in progress
    private Shaping shaping;
    private ProxyLedger.Exchange exchange;
    private long firstByteNotBefore;
    private boolean started;

    ShapedClientOutput(WritableByteChannel out, ProxyLedger ledger) {
        this.out = out;
        this.ledger = ledger;
    }

    /** A request arrived: what follows answers it, shaped by {@code shaping}. */
    void begin(Shaping shaping, ProxyLedger.Exchange exchange) {
        this.shaping = shaping;
        this.exchange = exchange;
        this.started = false;
        this.firstByteNotBefore = System.nanoTime();
        long rate = shaping.model().connectionBytesPerSecond();
        if (connectionBucket == null ? rate != 0 : connectionBucket.unitsPerSecond() != rate) {
            connectionBucket = Shaping.bucket(rate);
        }
    }

    /** The request's last byte arrived at {@code nanoTime}: the first-byte delay counts from there. */
    void requestReceived(long nanoTime) {
        firstByteNotBefore = nanoTime + shaping.model().firstByteDelay().toNanos();
    }

    /** Whether the final response's head went out, so nothing else can be answered any more. */
    boolean started() {
        return started;
    }

    /** Sends an interim (1xx) response head, without the first-byte delay. */
    void interim(byte[] head) throws IOException {
        send(ByteBuffer.wrap(head), false);
    }

    /** Sends the final response's head once the first-byte delay has passed. */
    void head(int status, byte[] head) throws IOException {
        sleepNanos(firstByteNotBefore - System.nanoTime());
        started = true;
        ledger.responseStarted(exchange, status);
        send(ByteBuffer.wrap(head), false);
    }

    /** Sends body bytes: payload, or chunk framing that counts as response bytes only. */
    void body(ByteBuffer bytes, boolean payload) throws IOException {
        send(bytes, payload);
    }

    /** Writes all of {@code bytes}: a blocking channel may take them in several writes. */
    static void writeFully(WritableByteChannel channel, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    private void send(ByteBuffer bytes, boolean payload) throws IOException {
        TokenBucket total = shaping.total();
        if (connectionBucket == null && total == null) {
            ledger.sent(exchange, bytes.remaining(), payload);
            writeFully(out, bytes);
            return;
        }
        int end = bytes.limit();
        while (bytes.position() < end) {
            int slice = Math.min(SLICE_BYTES, end - bytes.position());
            long wait = 0;
            if (connectionBucket != null) {
                wait = connectionBucket.reserve(slice);
            }
            if (total != null) {
                wait = Math.max(wait, total.reserve(slice));
            }
            sleepNanos(wait);
            ledger.sent(exchange, slice, payload);
            bytes.limit(bytes.position() + slice);
            writeFully(out, bytes);
        }
    }

    /**
     * Sleeps about {@code nanos} (nothing if not positive). Parking is used rather than {@code
     * Thread.sleep}, which on Java 17 rounds to whole milliseconds: far too coarse for a 16 KiB slice at
     * 80 MB/s (200 µs). An interrupt means the proxy is closing.
     */
    private static void sleepNanos(long nanos) throws InterruptedIOException {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedIOException("the proxy is closing");
            }
        }
    }
}
