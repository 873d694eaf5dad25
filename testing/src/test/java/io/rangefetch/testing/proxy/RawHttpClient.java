package io.rangefetch.testing.proxy;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;

/**
 * One client connection speaking HTTP/1.1 by hand, for tests that need to see exactly what the proxy
 * sends (interim responses, framing, resets) or to control the request byte for byte.
 */
final class RawHttpClient implements AutoCloseable {

    /** A response as received: its head, the payload, and the body bytes as sent (framing included). */
    record Response(MessageHead head, int status, byte[] payload, byte[] wireBody) {}

    private final Socket socket;
    private final ChannelInput in;
    private final OutputStream out;

    RawHttpClient(URI endpoint) throws IOException {
        socket = new Socket(endpoint.getHost(), endpoint.getPort());
        socket.setSoTimeout(30_000); // a proxy bug fails the test instead of hanging it
        in = new ChannelInput(Channels.newChannel(socket.getInputStream()), 64 * 1024);
        out = socket.getOutputStream();
    }

    /** Sends {@code head} (lines joined with CRLF, blank line added) followed by {@code body}. */
    void send(String head, byte[] body) throws IOException {
        out.write((head.replace("\n", "\r\n") + "\r\n\r\n").getBytes(US_ASCII));
        out.write(body);
        out.flush();
    }

    void send(String head) throws IOException {
        send(head, new byte[0]);
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Reads one response (interim ones included) to a request sent with {@code method}. */
    Response read(String method) throws IOException {
        MessageHead head = MessageHead.read(in);
        if (head == null) {
            throw new IOException("connection closed before a response");
        }
        int status = Integer.parseInt(head.startLinePart(1));
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        WritableByteChannel payloadChannel = Channels.newChannel(payload);
        WritableByteChannel wireChannel = Channels.newChannel(wire);
        BodyCopier.copy(
                BodyFraming.ofResponse(method, status, head),
                in,
                (bytes, isPayload) -> {
                    if (isPayload) {
                        payloadChannel.write(bytes.duplicate());
                    }
                    wireChannel.write(bytes);
                },
                Long.MAX_VALUE);
        return new Response(head, status, payload.toByteArray(), wire.toByteArray());
    }

    /** Reads whatever arrives until the proxy closes the connection; throws if it resets it. */
    byte[] readToEnd() throws IOException {
        return in.readAllBytes();
    }

    /** Bytes that arrived on the socket and no read took yet; it does not wait for any. */
    int bytesReady() throws IOException {
        return socket.getInputStream().available();
    }

    /** Whether the proxy closed the connection: the next read sees its end. */
    boolean closedByPeer() throws IOException {
        return in.read() < 0;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
