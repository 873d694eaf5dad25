package io.rangefetch.testing.proxy;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.ProtocolException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One client connection and the server connection that serves it, run on one thread with blocking
 * I/O: read a request head, forward it with its body, read the response, send it back shaped, and
 * again while both sides keep the connection alive. The server connection opens at the first request
 * and is reused; if a reused one turns out closed by the server before it answered anything, the
 * request is sent once more on a fresh one (only when no body was forwarded, so nothing is lost).
 *
 * <p>Forwarding is byte for byte: heads go as received and bodies keep their framing, so the server
 * sees the client's request (SigV4 signs the Host header) and the client sees the server's response.
 * The proxy answers by itself only a fault's {@code 503 SlowDown} or {@code 500 InternalError}, the rate
 * limit's {@code 503 SlowDown}, and a {@code 502 Bad Gateway} when the server cannot be reached. An {@code Expect: 100-continue} request's head goes first; the
 * server's {@code 100 Continue} is forwarded and only then the body, as the client expects.
 *
 * <p>Sockets are blocking channels read into direct buffers ({@link ChannelInput}): a forwarded body
 * byte is copied into the buffer and out of it, nothing more. {@link #close()} may come from another
 * thread (the proxy closing): it closes both channels, which ends any blocking read or write, and
 * interrupts the thread, which ends any shaping pause.
 */
final class ProxyConnection implements Runnable {

    private static final System.Logger LOG = System.getLogger(ProxyConnection.class.getName());

    // downloads are what the proxy must move fast; uploads come through the smaller client-side buffer
    private static final int SERVER_BUFFER_BYTES = 256 * 1024;
    private static final int CLIENT_BUFFER_BYTES = 64 * 1024;
    /** Where a fault cuts a body whose length the head does not say. */
    private static final long CUT_WITHOUT_LENGTH = 8 * 1024;

    private static final String S3_ERROR_TYPE = "application/xml";
    private static final byte[] SLOW_DOWN_BODY = s3Error("SlowDown", "Please reduce your request rate.");
    private static final byte[] INTERNAL_ERROR_BODY =
            s3Error("InternalError", "We encountered an internal error. Please try again.");

    private final ShapingProxy proxy;
    private final SocketChannel client;
    private final ChannelInput clientIn;
    private final ShapedClientOutput clientOut;
    private final Thread thread;
    private Upstream upstream; // written by the connection thread under this lock; closed by close()
    private boolean closed; // guarded by this

    private record Upstream(SocketChannel channel, ChannelInput in) {}

    ProxyConnection(ShapingProxy proxy, SocketChannel client, String threadName) throws IOException {
        this.proxy = proxy;
        this.client = client;
        client.setOption(StandardSocketOptions.TCP_NODELAY, true); // a head must not wait for an ACK
        this.clientIn = new ChannelInput(client, CLIENT_BUFFER_BYTES);
        this.clientOut = new ShapedClientOutput(client, proxy.ledger());
        this.thread = new Thread(this, threadName);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    @Override
    public void run() {
        try {
            while (exchange()) {
                // the next request on the same connection
            }
        } catch (ProtocolException e) {
            LOG.log(Level.WARNING, "closing proxied connection after a malformed message: {0}", e.getMessage());
        } catch (IOException e) {
            // the client or the server went away, or the proxy is closing: this connection is over either way
            LOG.log(Level.DEBUG, "proxied connection ended", e);
        } finally {
            close();
            proxy.connectionEnded(this);
        }
    }

    /** Closes both sockets and interrupts the thread; idempotent. */
    void close() {
        synchronized (this) {
            closed = true;
            closeQuietly(client);
            if (upstream != null) {
                closeQuietly(upstream.channel());
            }
        }
        if (Thread.currentThread() != thread) {
            thread.interrupt();
        }
    }

    /** Serves one request; returns whether the connection stays open for another. */
    private boolean exchange() throws IOException {
        MessageHead request = MessageHead.read(clientIn);
        if (request == null) {
            return false; // the client closed an idle connection
        }
        long headReceived = System.nanoTime();
        String method = request.startLinePart(0);
        String version = request.startLinePart(2);
        ProxyLedger.Exchange exchange =
                proxy.ledger().arrived(method, request.startLinePart(1), request.field("Range"));
        try {
            return serve(request, method, version, headReceived, exchange);
        } finally {
            proxy.ledger().ended(exchange);
        }
    }

    /** Answers one request the ledger counted: forwarded, or failed by a fault. */
    private boolean serve(
            MessageHead request, String method, String version, long headReceived, ProxyLedger.Exchange exchange)
            throws IOException {
        clientOut.begin(proxy.shaping(), exchange);
        BodyFraming requestBody = BodyFraming.ofRequest(request);
        boolean clientKeepsAlive = request.keepsAlive(version);

        // a LIST is an HTTP GET too, but the faults queued for GETs are for object reads
        boolean get = method.equals("GET") && !ProxiedRequest.isList(method, request.startLinePart(1));
        // S3 limits the rate of reads per prefix; a refused request takes no token and no queued fault
        if ((method.equals("GET") || method.equals("HEAD")) && !proxy.admitRequest()) {
            return answerItself(Fault.SLOW_DOWN_503, method, requestBody, clientKeepsAlive);
        }
        Fault fault = get ? proxy.takeFault() : null;
        if (fault != null && fault.answeredByProxy()) {
            proxy.faultApplied(fault);
            return answerItself(fault, method, requestBody, clientKeepsAlive);
        }
        try {
            return forward(request, method, requestBody, headReceived, clientKeepsAlive, fault);
        } catch (IOException e) {
            if (!clientOut.started()) {
                badGateway(method, e);
            }
            throw e;
        }
    }

    /** Answers a request with {@code fault}'s S3 error, without forwarding it; its body is read and dropped. */
    private boolean answerItself(Fault fault, String method, BodyFraming requestBody, boolean keepAlive)
            throws IOException {
        BodyCopier.copy(requestBody, clientIn, BodyCopier.DISCARD, Long.MAX_VALUE);
        clientOut.requestReceived(System.nanoTime());
        if (fault == Fault.SLOW_DOWN_503) {
            answer(503, "Slow Down", S3_ERROR_TYPE, SLOW_DOWN_BODY, method, keepAlive);
        } else if (fault == Fault.SERVER_ERROR_500) {
            answer(500, "Internal Server Error", S3_ERROR_TYPE, INTERNAL_ERROR_BODY, method, keepAlive);
        } else {
            throw new IllegalArgumentException("the proxy does not answer " + fault + " by itself");
        }
        return keepAlive;
    }

    private boolean forward(
            MessageHead request,
            String method,
            BodyFraming requestBody,
            long headReceived,
            boolean clientKeepsAlive,
            Fault fault)
            throws IOException {
        boolean expectsContinue = request.hasToken("Expect", "100-continue");
        boolean bodySent = requestBody.isNone();
        MessageHead response;
        if (bodySent || expectsContinue) {
            // nothing of the body goes before the server asks for it: safe to resend on a fresh connection
            response = sendAndAwaitResponse(request);
        } else {
            ShapedClientOutput.writeFully(upstream().channel(), ByteBuffer.wrap(request.raw()));
            sendRequestBody(requestBody);
            bodySent = true;
            response = readResponseHead(upstream);
        }
        if (fault == Fault.FIRST_BYTE_DELAY) {
            proxy.faultApplied(fault);
            FirstByteHold.hold(proxy, client, clientIn);
        }
        if (requestBody.isNone()) {
            clientOut.requestReceived(headReceived);
        }
        int status = status(response);
        while (status / 100 == 1 && status != 101) {
            clientOut.interim(response.raw());
            if (status == 100 && !bodySent) {
                sendRequestBody(requestBody);
                bodySent = true;
            }
            response = readResponseHead(upstream);
            status = status(response);
        }
        if (!bodySent) {
            // the server answered without wanting the body; the client may send it anyway, so the
            // connection cannot carry another request
            clientOut.requestReceived(System.nanoTime());
        }

        BodyFraming responseBody = BodyFraming.ofResponse(method, status, response);
        clientOut.head(status, response.raw());
        if (!BodyCopier.copy(responseBody, upstream.in(), clientOut::body, cutAfter(fault, responseBody))) {
            cut(fault);
            return false;
        }
        boolean reusable = bodySent
                && clientKeepsAlive
                && response.keepsAlive(response.startLinePart(0))
                && responseBody.kind() != BodyFraming.Kind.UNTIL_CLOSE
                && status != 101;
        if (!reusable) {
            closeUpstream();
        }
        return reusable;
    }

    private void sendRequestBody(BodyFraming requestBody) throws IOException {
        SocketChannel server = upstream.channel();
        BodyCopier.Sink toServer = (bytes, payload) -> ShapedClientOutput.writeFully(server, bytes);
        BodyCopier.copy(requestBody, clientIn, toServer, Long.MAX_VALUE);
        clientOut.requestReceived(System.nanoTime());
    }

    /**
     * Sends a head (no body yet) and reads the first response head, once more on a fresh connection if a
     * reused one turns out stale.
     */
    private MessageHead sendAndAwaitResponse(MessageHead request) throws IOException {
        boolean reused = upstream != null;
        try {
            ShapedClientOutput.writeFully(upstream().channel(), ByteBuffer.wrap(request.raw()));
            return readResponseHead(upstream);
        } catch (IOException e) {
            // a malformed answer is the server's fault, not a stale connection: never resend after one
            if (!reused || e instanceof ProtocolException || isClosed()) {
                throw e;
            }
            // servers close idle connections; that one died before it answered anything
            LOG.log(Level.DEBUG, "reused server connection failed, retrying on a new one", e);
            closeUpstream();
            ShapedClientOutput.writeFully(upstream().channel(), ByteBuffer.wrap(request.raw()));
            return readResponseHead(upstream);
        }
    }

    private static MessageHead readResponseHead(Upstream server) throws IOException {
        MessageHead head = MessageHead.read(server.in());
        if (head == null) {
            throw new EOFException("the server closed the connection without answering");
        }
        return head;
    }

    private static int status(MessageHead response) throws ProtocolException {
        String status = response.startLinePart(1);
        try {
            return Integer.parseInt(status);
        } catch (NumberFormatException e) {
            throw new ProtocolException("malformed status line: " + response.startLine());
        }
    }

    private static long cutAfter(Fault fault, BodyFraming body) {
        if (fault == null || !fault.cutsBody()) {
            return Long.MAX_VALUE;
        }
        return body.kind() == BodyFraming.Kind.LENGTH ? body.length() / 2 : CUT_WITHOUT_LENGTH;
    }

    /** Ends the connection the way {@code fault} says, in the middle of a response body. */
    private void cut(Fault fault) throws IOException {
        proxy.faultApplied(fault); // before the close, so a client that sees the cut sees it counted
        if (fault == Fault.RESET_MID_BODY) {
            client.setOption(StandardSocketOptions.SO_LINGER, 0); // closing now sends RST instead of FIN
        } else {
            client.shutdownOutput(); // FIN after the bytes already sent
        }
        close();
    }

    /** Sends a whole response of the proxy's own; a HEAD gets the head alone, as HTTP requires. */
    private void answer(int status, String reason, String contentType, byte[] body, String method, boolean keepAlive)
            throws IOException {
        String head = "HTTP/1.1 " + status + " " + reason + "\r\n"
                + "Content-Type: " + contentType + "\r\n"
                + "Content-Length: " + body.length + "\r\n"
                + (keepAlive ? "" : "Connection: close\r\n")
                + "\r\n";
        clientOut.head(status, head.getBytes(US_ASCII));
        if (!method.equals("HEAD")) {
            clientOut.body(ByteBuffer.wrap(body), true);
        }
    }

    private void badGateway(String method, IOException cause) {
        try {
            String message = "shaping proxy: no response from " + proxy.upstream() + ": " + cause + "\n";
            byte[] body = message.getBytes(UTF_8);
            answer(502, "Bad Gateway", "text/plain; charset=utf-8", body, method, false);
        } catch (IOException clientGone) {
            cause.addSuppressed(clientGone);
        }
    }

    private Upstream upstream() throws IOException {
        if (upstream != null) {
            return upstream;
        }
        SocketChannel channel = SocketChannel.open();
        synchronized (this) {
            if (closed) {
                channel.close();
                throw new IOException("the proxy is closing");
            }
            // registered before connecting so close() can end a connect that hangs
            upstream = new Upstream(channel, null);
        }
        try {
            channel.connect(proxy.upstreamAddress());
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            closeUpstream();
            throw e;
        }
        Upstream connected = new Upstream(channel, new ChannelInput(channel, SERVER_BUFFER_BYTES));
        synchronized (this) {
            upstream = connected;
        }
        return connected;
    }

    private void closeUpstream() {
        synchronized (this) {
            if (upstream != null) {
                closeQuietly(upstream.channel());
                upstream = null;
            }
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private static byte[] s3Error(String code, String message) {
        return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code>"
                        + "<Message>" + message + "</Message>"
                        + "<RequestId>shaping-proxy</RequestId><HostId>shaping-proxy</HostId></Error>")
                .getBytes(UTF_8);
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing for good: nothing to do about it
        }
    }
}
