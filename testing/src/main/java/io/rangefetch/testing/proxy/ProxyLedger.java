package io.rangefetch.testing.proxy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@link ShapingProxy} saw: requests by method (a ListObjectsV2 request, an HTTP GET, counted as
 * {@code LIST}, so that {@code GET} counts object reads only), in arrival order, how many were in flight at
 * once, responses by status, and the bytes it sent back.
 *
 * <p>A request is counted as soon as its head is read, and bytes are counted just before they are
 * handed to the client's socket, so whatever a client has received is already counted when its call
 * returns: a test may assert right after the call, without waiting. Thread-safe; one lock guards
 * everything, so a snapshot is consistent.
 */
public final class ProxyLedger {

    private final Map<String, Long> byMethod = new HashMap<>();
    private final Map<Integer, Long> byStatus = new HashMap<>();
    private final List<Exchange> exchanges = new ArrayList<>();
    private long responseBodyBytes;
    private long responseBytes;
    private long connectionsOpened;
    private int inFlight;
    private int maxInFlight;

    ProxyLedger() {}

    /**
     * Requests received with {@code method} (for example {@code "GET"}, or {@code "LIST"} for ListObjectsV2) since
     * creation or {@link #reset()}.
     */
    public synchronized long requests(String method) {
        requireNonNull(method, "method is null");
        return byMethod.getOrDefault(method, 0L);
    }

    public long gets() {
        return requests("GET");
    }

    public long heads() {
        return requests("HEAD");
    }

    /** ListObjectsV2 requests (not counted in {@link #gets()}). */
    public long lists() {
        return requests("LIST");
    }

    /**
     * Responses with {@code status} (for example {@code 503}) the proxy sent to clients since creation or
     * {@link #reset()}: forwarded ones and the proxy's own answers (faults, rate limit, {@code 502}). A
     * response counts when its head is sent; interim {@code 1xx} responses do not count.
     */
    public synchronized long responses(int status) {
        return byStatus.getOrDefault(status, 0L);
    }

    /** Response body bytes sent to clients (chunk framing excluded). */
    public synchronized long responseBodyBytes() {
        return responseBodyBytes;
    }

    /** Every byte sent to clients: status lines, headers, interim responses, bodies, chunk framing. */
    public synchronized long responseBytes() {
        return responseBytes;
    }

    /** Client connections the proxy accepted. */
    public synchronized long connectionsOpened() {
        return connectionsOpened;
    }

    /**
     * The most requests that were in flight at once since creation or {@link #reset()}. A request is in
     * flight from when its head is read until its response is fully sent or fails, so requests a client
     * sent in parallel overlap for as long as their transfers do.
     *
     * <p>A request ends just after the write of its last byte returns, which may be a moment after the
     * client has that byte: a client that sends its next request on another connection at once can,
     * rarely, see the two counted together. Requests one after another on one connection never are.
     */
    public synchronized int maxRequestsInFlight() {
        return maxInFlight;
    }

    /** A snapshot of every request, in arrival order; a response still being sent shows its progress. */
    public synchronized List<ProxiedRequest> requests() {
        return exchanges.stream().map(Exchange::snapshot).toList();
    }

    /**
     * Forgets everything counted so far; responses in progress go on counting their bytes from zero, and
     * stay in flight: the most in flight starts again from how many are.
     */
    public synchronized void reset() {
        byMethod.clear();
        byStatus.clear();
        exchanges.clear();
        responseBodyBytes = 0;
        responseBytes = 0;
        connectionsOpened = 0;
        maxInFlight = inFlight;
    }

    @Override
    public synchronized String toString() {
        return "ProxyLedger{requests "
                + byMethod
                + ", responses "
                + byStatus
                + ", "
                + responseBodyBytes
                + " body bytes, "
                + responseBytes
                + " bytes, "
                + connectionsOpened
                + " connections, at most "
                + maxInFlight
                + " requests in flight}";
    }

    synchronized void connectionOpened() {
        connectionsOpened++;
    }

    synchronized Exchange arrived(String method, String target, String rangeHeader) {
        byMethod.merge(ProxiedRequest.isList(method, target) ? "LIST" : method, 1L, Long::sum);
        Exchange exchange = new Exchange(method, target, rangeHeader);
        exchanges.add(exchange);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return exchange;
    }

    /** {@code exchange}'s response was fully sent, or it failed: it is no longer in flight. Idempotent. */
    synchronized void ended(Exchange exchange) {
        if (!exchange.ended) {
            exchange.ended = true;
            inFlight--;
        }
    }

    synchronized void responseStarted(Exchange exchange, int status) {
        exchange.status = status;
        byStatus.merge(status, 1L, Long::sum);
    }

    synchronized void sent(Exchange exchange, int bytes, boolean body) {
        responseBytes += bytes;
        if (body) {
            responseBodyBytes += bytes;
            exchange.bodyBytes += bytes;
        }
    }

    /** One request's entry; mutable, and only read or written under the ledger's lock. */
    static final class Exchange {
        private final String method;
        private final String target;
        private final String rangeHeader;
        private int status;
        private long bodyBytes;
        private boolean ended;

        private Exchange(String method, String target, String rangeHeader) {
            this.method = method;
            this.target = target;
            this.rangeHeader = rangeHeader;
        }

        private ProxiedRequest snapshot() {
            return new ProxiedRequest(method, target, rangeHeader, status, bodyBytes);
        }
    }
}
