package io.rangefetch.testing.proxy;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's HTTP handling against a scripted server and a hand-written client, so every framing case
 * (chunked, no length, no body, interim responses, early closes) is produced on purpose. The SDK against
 * real S3 servers is {@code ShapingProxySuite}'s job.
 */
class ShapingProxyTest {

    private static final byte[] OBJECT = bytes(100_000, 1);

    private final ProxyTestBench bench = new ProxyTestBench();

    @AfterEach
    void closeEverythingAndLeaveNoThread() throws Exception {
        bench.close();
    }

    @Test
    void forwardsARequestAndItsResponseByteForByteAndCountsThem() throws Exception {
        ScriptedServer server = server(ScriptedServer.answering(OBJECT));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        String head = "GET /bucket/key?x=1 HTTP/1.1\nHost: "
                + hostOf(proxy)
                + "\nRange: bytes=0-99999\nX-Custom:  kept  as is";
        client.send(head);
        RawHttpClient.Response response = client.read("GET");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.payload()).isEqualTo(OBJECT);
        // the server got the head exactly as the client sent it: Host included, spacing included
        assertThat(new String(server.requests().get(0).raw(), US_ASCII))
                .isEqualTo(head.replace("\n", "\r\n") + "\r\n\r\n");
        ProxyLedger ledger = proxy.ledger();
        assertThat(ledger.gets()).isEqualTo(1);
        assertThat(ledger.requests("GET")).isEqualTo(1);
        assertThat(ledger.heads()).isZero();
        assertThat(ledger.responseBodyBytes()).isEqualTo(OBJECT.length);
        assertThat(ledger.responseBytes()).isEqualTo(response.head().raw().length + OBJECT.length);
        assertThat(ledger.connectionsOpened()).isEqualTo(1);
        assertThat(ledger.requests())
                .containsExactly(new ProxiedRequest("GET", "/bucket/key?x=1", "bytes=0-99999", 200, OBJECT.length));
    }

    @Test
    void keepsConnectionsAliveOnBothSides() throws Exception {
        ScriptedServer server = server(ScriptedServer.answering(OBJECT));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        for (int i = 0; i < 5; i++) {
            client.send("GET /o" + i + " HTTP/1.1\nHost: proxy");
            assertThat(client.read("GET").payload()).isEqualTo(OBJECT);
        }

        assertThat(proxy.ledger().connectionsOpened()).isEqualTo(1);
        assertThat(server.connectionsAccepted()).isEqualTo(1);
        assertThat(proxy.ledger().requests())
                .extracting(ProxiedRequest::target)
                .containsExactly("/o0", "/o1", "/o2", "/o3", "/o4");
        // one after another on one connection: each ended before the next head was read
        assertThat(proxy.ledger().maxRequestsInFlight()).isEqualTo(1);
    }

    @Test
    void countsTheRequestsInFlightAtOnceFromTheirHeadToTheirLastByte() throws Exception {
        // the server answers none of three requests before it has all three, so all are in flight at once
        CountDownLatch allArrived = new CountDownLatch(3);
        ScriptedServer.Handler answer = ScriptedServer.answering(OBJECT);
        ScriptedServer server = server((request, in, out) -> {
            allArrived.countDown();
            try {
                if (!allArrived.await(10, TimeUnit.SECONDS)) {
                    throw new IOException("the three requests never reached the server together");
                }
            } catch (InterruptedException e) {
                throw new InterruptedIOException("server closing");
            }
            return answer.handle(request, in, out);
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        List<RawHttpClient> clients = List.of(client(proxy), client(proxy), client(proxy));

        for (RawHttpClient client : clients) {
            client.send("GET /together HTTP/1.1\nHost: proxy");
        }
        for (RawHttpClient client : clients) {
            assertThat(client.read("GET").payload()).isEqualTo(OBJECT);
        }

        assertThat(proxy.ledger().maxRequestsInFlight()).isEqualTo(3);
    }

    @Test
    void forwardsAChunkedResponseWithItsFramingAndCountsOnlyThePayload() throws Exception {
        String chunked = "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n";
        ScriptedServer server = server((request, in, out) -> {
            out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(US_ASCII));
            out.write(chunked.getBytes(US_ASCII));
            return true;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        client.send("GET /chunked HTTP/1.1\nHost: proxy");
        RawHttpClient.Response response = client.read("GET");
        client.send("GET /again HTTP/1.1\nHost: proxy");
        RawHttpClient.Response again = client.read("GET");

        assertThat(new String(response.wireBody(), US_ASCII)).isEqualTo(chunked);
        assertThat(response.payload()).asString(US_ASCII).isEqualTo("hello world");
        assertThat(again.payload()).asString(US_ASCII).isEqualTo("hello world");
        assertThat(proxy.ledger().responseBodyBytes()).isEqualTo(22);
        assertThat(proxy.ledger().responseBytes())
                .isEqualTo(2L * (response.head().raw().length + chunked.length()));
    }

    @Test
    void forwardsChunkedAndLengthRequestBodiesUnchanged() throws Exception {
        List<byte[]> bodies = new ArrayList<>();
        ScriptedServer server = server((request, in, out) -> {
            bodies.add(ScriptedServer.readBody(request, in));
            out.write("HTTP/1.1 204 No Content\r\n\r\n".getBytes(US_ASCII));
            return true;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        client.send(
                "PUT /a HTTP/1.1\nHost: proxy\nTransfer-Encoding: chunked",
                "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n".getBytes(US_ASCII));
        assertThat(client.read("PUT").status()).isEqualTo(204);
        client.send("PUT /b HTTP/1.1\nHost: proxy\nContent-Length: 70000", bytes(70_000, 2));
        assertThat(client.read("PUT").status()).isEqualTo(204);

        assertThat(bodies.get(0)).asString(US_ASCII).isEqualTo("abcde");
        assertThat(bodies.get(1)).isEqualTo(bytes(70_000, 2));
        assertThat(proxy.ledger().requests("PUT")).isEqualTo(2);
        assertThat(proxy.ledger().responseBodyBytes()).isZero();
        assertThat(server.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void forwardsTheServersContinueBeforeTheBodyAndThenTheFinalResponse() throws Exception {
        ScriptedServer server = server((request, in, out) -> {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(US_ASCII));
            byte[] body = ScriptedServer.readBody(request, in);
            out.write(head("200 OK", "Content-Length: " + body.length));
            out.write(body);
            return true;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        // the client holds the body back until it sees 100 Continue, as the SDK does
        client.send("PUT /upload HTTP/1.1\nHost: proxy\nExpect: 100-continue\nContent-Length: 5");
        assertThat(client.read("PUT").status()).isEqualTo(100);
        client.sendRaw("hello".getBytes(US_ASCII));
        RawHttpClient.Response response = client.read("PUT");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.payload()).asString(US_ASCII).isEqualTo("hello");
        assertThat(proxy.ledger().requests()).containsExactly(new ProxiedRequest("PUT", "/upload", null, 200, 5));
        client.send("GET /next HTTP/1.1\nHost: proxy\nExpect: 100-continue\nContent-Length: 0");
        assertThat(client.read("GET").status()).isEqualTo(100);
        assertThat(client.read("GET").status()).isEqualTo(200);
    }

    @Test
    void aFinalAnswerWithoutContinueEndsTheConnectionSinceTheBodyMayStillCome() throws Exception {
        ScriptedServer server = server((request, in, out) -> {
            out.write("HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\n\r\nno".getBytes(US_ASCII));
            return false;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        client.send("PUT /denied HTTP/1.1\nHost: proxy\nExpect: 100-continue\nContent-Length: 5");
        RawHttpClient.Response response = client.read("PUT");

        assertThat(response.status()).isEqualTo(403);
        assertThat(response.payload()).asString(US_ASCII).isEqualTo("no");
        assertThat(client.closedByPeer()).isTrue();
    }

    @Test
    void responsesWithoutABodyEndAtTheirHead() throws Exception {
        ScriptedServer server = server((request, in, out) -> {
            String status = switch (request.startLinePart(1)) {
                case "/204" -> "204 No Content";
                case "/304" -> "304 Not Modified";
                default -> "200 OK";
            };
            // a Content-Length on all three, as S3 sends on HEAD: none of them has a body
            out.write(("HTTP/1.1 " + status + "\r\nContent-Length: 1000\r\n\r\n").getBytes(US_ASCII));
            return true;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        client.send("HEAD /head HTTP/1.1\nHost: proxy");
        assertThat(client.read("HEAD").payload()).isEmpty();
        client.send("GET /204 HTTP/1.1\nHost: proxy");
        assertThat(client.read("GET").status()).isEqualTo(204);
        client.send("GET /304 HTTP/1.1\nHost: proxy");
        assertThat(client.read("GET").status()).isEqualTo(304);

        assertThat(proxy.ledger().heads()).isEqualTo(1);
        assertThat(proxy.ledger().gets()).isEqualTo(2);
        assertThat(proxy.ledger().responseBodyBytes()).isZero();
        assertThat(proxy.ledger().requests()).extracting(ProxiedRequest::status).containsExactly(200, 204, 304);
    }

    @Test
    void connectionCloseFromTheServerClosesTheClientConnectionToo() throws Exception {
        ScriptedServer server = server((request, in, out) -> {
            out.write(head("200 OK", "Content-Length: 2\r\nConnection: close"));
            out.write("ok".getBytes(US_ASCII));
            return false;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        client.send("GET /once HTTP/1.1\nHost: proxy");
        RawHttpClient.Response response = client.read("GET");

        assertThat(response.head().field("Connection")).isEqualTo("close");
        assertThat(client.closedByPeer()).isTrue();
    }

    @Test
    void connectionCloseFromTheClientIsForwardedAndHonoured() throws Exception {
        ScriptedServer server = server(ScriptedServer.answering(OBJECT));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        client.send("GET /last HTTP/1.1\nHost: proxy\nConnection: close");
        assertThat(client.read("GET").payload()).isEqualTo(OBJECT);

        assertThat(client.closedByPeer()).isTrue();
        assertThat(server.requests().get(0).field("Connection")).isEqualTo("close");
    }

    @Test
    void aResponseWithoutLengthEndsWhenTheServerCloses() throws Exception {
        ScriptedServer server = server((request, in, out) -> {
            out.write("HTTP/1.1 200 OK\r\n\r\n".getBytes(US_ASCII));
            out.write(OBJECT);
            return false;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        client.send("GET /until-close HTTP/1.1\nHost: proxy");
        RawHttpClient.Response response = client.read("GET");

        assertThat(response.payload()).isEqualTo(OBJECT);
        assertThat(proxy.ledger().responseBodyBytes()).isEqualTo(OBJECT.length);
    }

    @Test
    void aServerConnectionClosedWhileIdleIsReplacedWithoutTheClientNoticing() throws Exception {
        // the server closes after every response without saying so, as servers do with idle connections
        ScriptedServer server = server((request, in, out) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(US_ASCII));
            return false;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        for (int i = 0; i < 3; i++) {
            client.send("GET /again HTTP/1.1\nHost: proxy");
            assertThat(client.read("GET").payload()).asString(US_ASCII).isEqualTo("ok");
        }

        assertThat(proxy.ledger().gets()).isEqualTo(3);
        assertThat(server.connectionsAccepted()).isEqualTo(3);
    }

    @Test
    void anUnreachableServerIsABadGateway() throws Exception {
        URI nothingListens;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            nothingListens = URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
        ShapingProxy proxy = proxy(nothingListens, NetworkModel.unshaped());
        RawHttpClient client = client(proxy);

        client.send("GET /x HTTP/1.1\nHost: proxy");
        RawHttpClient.Response response = client.read("GET");

        assertThat(response.status()).isEqualTo(502);
        assertThat(proxy.ledger().requests()).extracting(ProxiedRequest::status).containsExactly(502);
        assertThat(client.closedByPeer()).isTrue();
    }

    @Test
    void slowDownIsAnsweredByTheProxyWithoutReachingTheServer() throws Exception {
        ScriptedServer server = server(ScriptedServer.answering(OBJECT));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);
        proxy.failNext(Fault.SLOW_DOWN_503);

        client.send("HEAD /not-a-get HTTP/1.1\nHost: proxy");
        assertThat(client.read("HEAD").status()).isEqualTo(200);
        assertThat(proxy.pendingFaults()).isEqualTo(1);
        client.send("GET /throttled HTTP/1.1\nHost: proxy");
        RawHttpClient.Response throttled = client.read("GET");
        client.send("GET /fine HTTP/1.1\nHost: proxy");
        RawHttpClient.Response fine = client.read("GET");

        assertThat(throttled.status()).isEqualTo(503);
        assertThat(throttled.payload()).asString(US_ASCII).contains("<Code>SlowDown</Code>");
        assertThat(fine.payload()).isEqualTo(OBJECT);
        assertThat(server.requests())
                .extracting(request -> request.startLinePart(1))
                .containsExactly("/not-a-get", "/fine");
        assertThat(proxy.ledger().requests())
                .extracting(ProxiedRequest::target, ProxiedRequest::status)
                .containsExactly(tuple("/not-a-get", 200), tuple("/throttled", 503), tuple("/fine", 200));
        // an answer of the proxy's own ends its request too
        assertThat(proxy.ledger().maxRequestsInFlight()).isEqualTo(1);
    }

    @Test
    void aTruncatedBodyEndsHalfWayWithAnOrderlyClose() throws Exception {
        ScriptedServer server = server(ScriptedServer.answering(OBJECT));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);
        proxy.failNext(Fault.TRUNCATED_BODY);

        client.send("GET /cut HTTP/1.1\nHost: proxy");
        byte[] received = client.readToEnd();

        byte[] body = Arrays.copyOfRange(received, received.length - OBJECT.length / 2, received.length);
        assertThat(new String(received, US_ASCII)).startsWith("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
        assertThat(body).isEqualTo(Arrays.copyOf(OBJECT, OBJECT.length / 2));
        assertThat(proxy.ledger().requests())
                .containsExactly(new ProxiedRequest("GET", "/cut", null, 200, OBJECT.length / 2));
    }

    @Test
    void aResetMidBodyResetsTheConnection() throws Exception {
        ScriptedServer server = server(ScriptedServer.answering(OBJECT));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);
        proxy.failNext(Fault.RESET_MID_BODY);

        client.send("GET /reset HTTP/1.1\nHost: proxy");

        assertThatThrownBy(() -> client.read("GET")).isInstanceOf(SocketException.class);
        assertThat(proxy.ledger().responseBodyBytes()).isEqualTo(OBJECT.length / 2);
        // a fresh connection is served normally
        RawHttpClient next = client(proxy);
        next.send("GET /after HTTP/1.1\nHost: proxy");
        assertThat(next.read("GET").payload()).isEqualTo(OBJECT);
    }

    @Test
    void everyResponseWaitsForTheFirstByteDelay() throws Exception {
        Duration delay = Duration.ofMillis(60);
        ScriptedServer server = server(ScriptedServer.answering(OBJECT));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped().withFirstByteDelay(delay));
        RawHttpClient client = client(proxy);

        long start = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            client.send("GET /slow HTTP/1.1\nHost: proxy");
            client.read("GET");
        }
        long elapsed = System.nanoTime() - start;

        assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(delay.multipliedBy(3));
    }

    @Test
    void aModelChangeAppliesToTheResponsesThatFollow() throws Exception {
        ScriptedServer server = server(ScriptedServer.answering(OBJECT));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        RawHttpClient client = client(proxy);
        client.send("GET /fast HTTP/1.1\nHost: proxy");
        client.read("GET");

        NetworkModel slow = NetworkModel.unshaped().withFirstByteDelay(Duration.ofMillis(100));
        proxy.setModel(slow);
        long start = System.nanoTime();
        client.send("GET /slow HTTP/1.1\nHost: proxy");
        client.read("GET");

        assertThat(proxy.model()).isEqualTo(slow);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aConnectionCapHoldsTheRateDown() throws Exception {
        byte[] eightMegabytes = bytes(8_000_000, 3);
        ScriptedServer server = server(ScriptedServer.answering(eightMegabytes));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped().withConnectionBytesPerSecond(40_000_000));
        RawHttpClient client = client(proxy);

        long start = System.nanoTime();
        client.send("GET /big HTTP/1.1\nHost: proxy");
        byte[] received = client.read("GET").payload();
        long elapsed = System.nanoTime() - start;

        assertThat(received).isEqualTo(eightMegabytes);
        // 8 MB at 40 MB/s is 200 ms; the burst allowance lets 64 KiB go early
        assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(Duration.ofMillis(180));
    }

    @Test
    void aTotalCapIsSharedByAllConnections() throws Exception {
        byte[] fourMegabytes = bytes(4_000_000, 4);
        ScriptedServer server = server(ScriptedServer.answering(fourMegabytes));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped().withTotalBytesPerSecond(40_000_000));
        ExecutorService clients = Executors.newFixedThreadPool(2);
        bench.add(() -> shutDown(clients));

        long start = System.nanoTime();
        List<Future<byte[]>> downloads = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RawHttpClient client = client(proxy);
            downloads.add(clients.submit(() -> {
                client.send("GET /shared HTTP/1.1\nHost: proxy");
                return client.read("GET").payload();
            }));
        }
        for (Future<byte[]> download : downloads) {
            assertThat(download.get(1, TimeUnit.MINUTES)).isEqualTo(fourMegabytes);
        }
        long elapsed = System.nanoTime() - start;

        // 8 MB in all at 40 MB/s in all: 200 ms, less one burst
        assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(Duration.ofMillis(180));
    }

    @Test
    void closeEndsConnectionsInTheMiddleOfAResponseAndLeavesNoThread() throws Exception {
        ScriptedServer server = server(ScriptedServer.answering(bytes(8_000_000, 5)));
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped().withConnectionBytesPerSecond(1_000_000));
        RawHttpClient busy = client(proxy);
        RawHttpClient idle = client(proxy);
        idle.send("GET /small HTTP/1.1\nHost: proxy");
        busy.send("GET /slow HTTP/1.1\nHost: proxy");
        assertThat(idle.read("GET").status()).isEqualTo(200);

        proxy.close();
        proxy.close(); // idempotent

        bench.threads().assertNoNewThreads(ShapingProxy.THREAD_NAME_PREFIX, Duration.ZERO);
        assertThat(idle.closedByPeer()).isTrue();
        assertThatThrownBy(() -> busy.read("GET")).isInstanceOf(IOException.class);
    }

    @Test
    void movesDataFastWhenUnshaped() throws Exception {
        // not a benchmark: it checks the bytes and prints the rate, which the proxy's docs quote
        byte[] block = bytes(1 << 20, 6);
        int blocks = 256;
        ScriptedServer server = server((request, in, out) -> {
            out.write(head("200 OK", "Content-Length: " + (long) blocks * block.length));
            for (int i = 0; i < blocks; i++) {
                out.write(block);
            }
            return true;
        });
        ShapingProxy proxy = proxy(server.endpoint(), NetworkModel.unshaped());
        try (Socket socket = new Socket("127.0.0.1", proxy.endpoint().getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /fast HTTP/1.1\r\nHost: proxy\r\n\r\n".getBytes(US_ASCII));
            long start = System.nanoTime();
            byte[] buffer = new byte[1 << 18];
            long total = 0;
            InputStream in = socket.getInputStream();
            long expected = (long) blocks * block.length;
            MessageHead.read(in); // small head, read byte by byte from the raw stream
            int read;
            while (total < expected && (read = in.read(buffer)) > 0) {
                total += read;
            }
            long elapsed = System.nanoTime() - start;
            assertThat(total).isEqualTo(expected);
            assertThat(proxy.ledger().responseBodyBytes()).isEqualTo(expected);
            System.out.printf(
                    "shaping proxy, unshaped: %d MiB in %d ms = %.2f GB/s%n",
                    expected >> 20, elapsed / 1_000_000, expected / (elapsed / 1e9) / 1e9);
        }
    }

    private ScriptedServer server(ScriptedServer.Handler handler) throws IOException {
        return bench.server(handler);
    }

    private ShapingProxy proxy(URI upstream, NetworkModel model) throws IOException {
        return bench.proxy(upstream, model);
    }

    private RawHttpClient client(ShapingProxy proxy) throws IOException {
        return bench.client(proxy);
    }

    /** A response head: status line and the given header lines (CRLF-separated), then the blank line. */
    private static byte[] head(String status, String fields) {
        return ("HTTP/1.1 " + status + "\r\n" + fields + "\r\n\r\n").getBytes(US_ASCII);
    }

    private static String hostOf(ShapingProxy proxy) {
        return proxy.endpoint().getAuthority();
    }

    private static void shutDown(ExecutorService executor) throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(10, TimeUnit.SECONDS);
    }

    private static byte[] bytes(int length, long seed) {
        byte[] data = new byte[length];
        new SplittableRandom(seed).nextBytes(data);
        return data;
    }
}
