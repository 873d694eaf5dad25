package io.rangefetch.testing.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal HTTP server for the proxy's unit tests: each request head is handed to the test's handler
 * with the raw streams, and the handler writes whatever response bytes the test needs (chunked, without
 * length, an early close). It records every request head and counts accepted connections. Its threads
 * ({@value #THREAD_PREFIX}...) end on {@link #close()}.
 */
final class ScriptedServer implements AutoCloseable {

    static final String THREAD_PREFIX = "scripted-server-";

    /** Answers one request; returns whether the connection should stay open for another. */
    @FunctionalInterface
    interface Handler {
        boolean handle(MessageHead request, ChannelInput in, OutputStream out) throws IOException;
    }

    private final ServerSocket listener;
    private final Handler handler;
    private final List<MessageHead> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();

    private ScriptedServer(ServerSocket listener, Handler handler) {
        this.listener = listener;
        this.handler = handler;
    }

    static ScriptedServer start(Handler handler) throws IOException {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        ScriptedServer server = new ScriptedServer(listener, handler);
        server.startThread("accept", server::acceptLoop);
        return server;
    }

    /** A handler answering every request with {@code 200} and {@code body}, keeping the connection. */
    static Handler answering(byte[] body) {
        return (request, in, out) -> {
            readBody(request, in);
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes());
            if (!request.startLinePart(0).equals("HEAD")) {
                out.write(body);
            }
            return true;
        };
    }

    /** Reads the request's body (any framing) and returns its payload. */
    static byte[] readBody(MessageHead request, ChannelInput in) throws IOException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        WritableByteChannel payloadChannel = Channels.newChannel(payload);
        BodyCopier.copy(
                BodyFraming.ofRequest(request),
                in,
                (bytes, isPayload) -> {
                    if (isPayload) {
                        payloadChannel.write(bytes);
                    }
                },
                Long.MAX_VALUE);
        return payload.toByteArray();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    List<MessageHead> requests() {
        return List.copyOf(requests);
    }

    int connectionsAccepted() {
        return connections.get();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
        for (Thread thread : new ArrayList<>(threads)) {
            thread.join(10_000);
        }
    }

    private void acceptLoop() {
        try {
            while (true) {
                Socket socket = listener.accept();
                // handlers write a head and a body separately: Nagle would hold a small body for a delayed ACK
                socket.setTcpNoDelay(true);
                connections.incrementAndGet();
                sockets.add(socket);
                startThread("connection-" + connections.get(), () -> serve(socket));
            }
        } catch (IOException closed) {
            // listener closed: the server is stopping
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            ChannelInput in = new ChannelInput(Channels.newChannel(socket.getInputStream()), 8192);
            OutputStream out = socket.getOutputStream();
            MessageHead request;
            while ((request = MessageHead.read(in)) != null) {
                requests.add(request);
                if (!handler.handle(request, in, out)) {
                    return;
                }
            }
        } catch (IOException ended) {
            // the proxy closed its connection, or the test scripted a failure
        }
    }

    private void startThread(String role, Runnable body) {
        Thread thread = new Thread(body, THREAD_PREFIX + role);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }
}
