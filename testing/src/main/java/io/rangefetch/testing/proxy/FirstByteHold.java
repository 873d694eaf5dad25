package io.rangefetch.testing.proxy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Holds a response head back for {@link Fault#FIRST_BYTE_DELAY}: the connection's thread waits until
 * the proxy's fault first-byte delay has passed since the hold began, while watching its client.
 *
 * <p>A plain park would not notice a client that gives up: the thread would sit out the whole delay
 * (seconds, by design) for nobody. So the client's channel is switched to non-blocking for the hold and
 * the thread waits in a {@link Selector} on it: the wait ends when the delay passes, when the client
 * closes or resets (the connection then ends), when the proxy closes (its interrupt wakes the select),
 * or when the proxy's delay changes ({@link ShapingProxy#setFaultFirstByteDelay} wakes the selector,
 * and the wait is measured again against the new delay). Bytes a client sends meanwhile (a pipelined
 * request) go into its {@link ChannelInput}'s buffer, so nothing is lost; when that buffer is full the
 * client is no longer watched and only time, a delay change or the proxy's close end the hold.
 *
 * <p>Each hold is registered with the proxy while it lasts, which is how tests see a head held. Used
 * by the connection's thread only.
 */
final class FirstByteHold {

    private FirstByteHold() {}

    /**
     * Returns once the delay has passed; throws if the client went away or the proxy is closing, and the
     * connection must end.
     */
    static void hold(ShapingProxy proxy, SocketChannel client, ChannelInput clientIn) throws IOException {
        long heldAt = System.nanoTime();
        Selector selector = Selector.open();
        try {
            client.configureBlocking(false);
            SelectionKey key = client.register(selector, SelectionKey.OP_READ);
            proxy.headHeld(selector);
            try {
                waitOut(proxy, selector, key, clientIn, heldAt);
            } finally {
                proxy.headReleased(selector);
            }
        } finally {
            selector.close(); // deregisters the client, which may then block again
            if (client.isOpen()) {
                client.configureBlocking(true);
            }
        }
    }

    private static void waitOut(
            ShapingProxy proxy, Selector selector, SelectionKey key, ChannelInput clientIn, long heldAt)
            throws IOException {
        while (true) {
            // elapsed first, then the difference: a delay near Long.MAX_VALUE nanoseconds cannot overflow
            long left = proxy.faultFirstByteDelayNanos() - (System.nanoTime() - heldAt);
            if (left <= 0) {
                return;
            }
            // select(0) would wait for ever: wait at least a millisecond, and measure again after
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            if (Thread.interrupted()) {
                throw new InterruptedIOException("the proxy is closing");
            }
            if (selector.selectedKeys().remove(key)) {
                if (!clientIn.readAvailable()) {
                    throw new EOFException("the client closed its connection while its response head was held");
                }
                if (clientIn.full()) {
                    key.interestOps(0);
                }
            }
        }
    }
}
