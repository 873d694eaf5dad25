package io.rangefetch.testing.proxy;

/**
 * A failure a {@link ShapingProxy} injects into a GET's response, as S3 or the network between would
 * produce it: queued for the next GETs ({@link ShapingProxy#failNext(Fault)}), drawn at random ({@link
 * ShapingProxy#setRandomFaults(RandomFaults)}), or, for {@link #SLOW_DOWN_503}, the answer of the
 * proxy's request-rate limit ({@link ShapingProxy#setRequestRateLimit(double, int)}). {@link
 * ShapingProxy#injectedFaults()} counts each one when it is applied.
 */
public enum Fault {
    /** The proxy answers {@code 503 SlowDown} itself; the request never reaches the server. */
    SLOW_DOWN_503,
    /**
     * The server's response is forwarded up to half its body (8 KiB if its length is unknown), then the
     * client connection is reset (TCP RST). A response without a body passes unharmed.
     */
    RESET_MID_BODY,
    /**
     * Like {@link #RESET_MID_BODY} but the connection is closed normally: the client sees the body end
     * before its {@code Content-Length}.
     */
    TRUNCATED_BODY,
    /**
     * The proxy answers {@code 500 Internal Server Error} itself, with S3's {@code InternalError} body;
     * the request never reaches the server.
     */
    SERVER_ERROR_500,
    /**
     * The request is forwarded, but the response head is held back for the proxy's fault first-byte
     * delay ({@link ShapingProxy#setFaultFirstByteDelay(java.time.Duration)}, 2 s unless set) before
     * anything is sent to the client; then the response goes as usual. The hold ends early, with the
     * connection, if the client goes away or the proxy closes.
     */
    FIRST_BYTE_DELAY;

    /** Whether this fault cuts a response body, so a response without one cannot carry it. */
    boolean cutsBody() {
        return this == RESET_MID_BODY || this == TRUNCATED_BODY;
    }

    /** Whether the proxy answers by itself, without forwarding the request. */
    public boolean answeredByProxy() {
        return this == SLOW_DOWN_503 || this == SERVER_ERROR_500;
    }
}
