package io.rangefetch.testing.proxy;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The faults added for random fault injection (500s, held heads), the random plan, the request-rate
 * limit and the counts the proxy keeps of them, against a scripted server and a hand-written client.
 * Time never decides an outcome: the rate limit runs on a clock the test moves, and a held head is seen
 * through the proxy's own count of held heads and released by changing the delay.
 */
class ShapingProxyFaultsTest {

    private static final byte[] OBJECT = "forty-two bytes of an object, for a test".getBytes(US_ASCII);
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** A hold no test sits out: each one ends it by other means. */
    private static final Duration FOR_EVER = Duration.ofHours(1);

    private final ProxyTestBench bench = new ProxyTestBench();
    private final AtomicLong now = new AtomicLong(5_000_000_000L);

    @AfterEach
    void closeEverythingAndLeaveNoThread() throws Exception {
        bench.close();
    }

    @Test
    void aServerErrorIsAnsweredByTheProxyWithoutReachingTheServer() throws Exception {
        ScriptedServer server = server();
        ShapingProxy proxy = proxy(server);
        RawHttpClient client = client(proxy);
        proxy.failNext(Fault.SERVER_ERROR_500);

        RawHttpClient.Response failed = get(client, "/failed");
        RawHttpClient.Response fine = get(client, "/fine");

        assertThat(failed.status()).isEqualTo(500);
        assertThat(failed.head().field("Content-Type")).isEqualTo("application/xml");
        assertThat(failed.payload()).asString(US_ASCII).contains("<Code>InternalError</Code>");
        assertThat(fine.payload()).isEqualTo(OBJECT);
        assertThat(targets(server)).containsExactly("/fine");
        assertThat(proxy.injectedFaults()).isEqualTo(counts(Map.of(Fault.SERVER_ERROR_500, 1L)));
        assertThat(proxy.ledger().responses(500)).isEqualTo(1);
        assertThat(proxy.ledger().responses(200)).isEqualTo(1);
    }

    @Test
    void aHeldHeadReachesTheClientOnlyOnceTheDelayHasPassed() throws Exception {
        ScriptedServer server = server();
        ShapingProxy proxy = proxy(server);
        RawHttpClient client = client(proxy);

        holdAHead(proxy, client, "/held");

        // forwarded and answered, yet nothing of the answer has gone to the client
        assertThat(targets(server)).containsExactly("/held");
        assertThat(proxy.ledger().responseBytes()).isZero();
        assertThat(proxy.ledger().responses(200)).isZero();
        assertThat(client.bytesReady()).isZero();
        assertThat(proxy.injectedFaults()).containsEntry(Fault.FIRST_BYTE_DELAY, 1L);

        proxy.setFaultFirstByteDelay(Duration.ZERO); // the held head has waited that long: it goes now
        RawHttpClient.Response response = client.read("GET");

        assertThat(response.payload()).isEqualTo(OBJECT);
        assertThat(proxy.heldHeads()).isZero();
        assertThat(proxy.ledger().responses(200)).isEqualTo(1);
        // the connection goes on as usual
        assertThat(get(client, "/next").payload()).isEqualTo(OBJECT);
    }

    @Test
    void aHeldHeadEndsWithItsConnectionWhenTheClientGoesAway() throws Exception {
        ShapingProxy proxy = proxy(server());
        RawHttpClient client = client(proxy);
        holdAHead(proxy, client, "/abandoned");

        client.close();

        assertThat(proxy.awaitHeldHeads(0, WAIT)).isTrue();
        assertThat(proxy.awaitOpenConnections(0, WAIT)).isTrue();
        assertThat(proxy.ledger().responses(200)).isZero();
    }

    @Test
    void closeEndsAHeldHeadAtOnce() throws Exception {
        ShapingProxy proxy = proxy(server());
        RawHttpClient client = client(proxy);
        holdAHead(proxy, client, "/held");

        // close() throws if a connection thread outlives its stop timeout, far shorter than the delay
        proxy.close();

        bench.threads().assertNoNewThreads(ShapingProxy.THREAD_NAME_PREFIX, Duration.ZERO);
        assertThat(proxy.heldHeads()).isZero();
        assertThat(proxy.openConnections()).isZero();
        assertThatThrownBy(() -> client.read("GET")).isInstanceOf(IOException.class);
    }

    @Test
    void theFaultFirstByteDelayIsTwoSecondsUnlessSetAndNeverNegative() throws Exception {
        ShapingProxy proxy = proxy(server());

        assertThat(proxy.faultFirstByteDelay()).isEqualTo(Duration.ofSeconds(2));
        proxy.setFaultFirstByteDelay(Duration.ofMillis(300));
        assertThat(proxy.faultFirstByteDelay()).isEqualTo(Duration.ofMillis(300));
        assertThatThrownBy(() -> proxy.setFaultFirstByteDelay(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.000000001S");
        assertThatThrownBy(() -> proxy.setFaultFirstByteDelay(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void oneSeedGivesTheSameFaultsInTheSameOrder() throws Exception {
        // the faults a proxy answers by itself, so every GET's outcome shows in its status
        RandomFaults plan =
                RandomFaults.seeded(7).with(Fault.SLOW_DOWN_503, 0.25).with(Fault.SERVER_ERROR_500, 0.25);
        Random expected = new Random(7);
        List<Integer> expectedStatuses = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Fault fault = plan.draw(expected);
            expectedStatuses.add(fault == null ? 200 : fault == Fault.SLOW_DOWN_503 ? 503 : 500);
        }

        List<Integer> first = statusesOfGets(plan, 40);
        List<Integer> second = statusesOfGets(plan, 40);

        assertThat(first).isEqualTo(expectedStatuses).isEqualTo(second);
        assertThat(first).contains(200, 500, 503);
    }

    @Test
    void randomFaultsAreCountedAndStopWhenCleared() throws Exception {
        ScriptedServer server = server();
        ShapingProxy proxy = proxy(server);
        RawHttpClient client = client(proxy);
        RandomFaults plan = RandomFaults.seeded(3).with(Fault.SLOW_DOWN_503, 0.5);
        proxy.setRandomFaults(plan);

        int throttled = 0;
        for (int i = 0; i < 20; i++) {
            throttled += get(client, "/r" + i).status() == 503 ? 1 : 0;
        }
        proxy.clearRandomFaults();
        for (int i = 0; i < 5; i++) {
            assertThat(get(client, "/after" + i).status()).isEqualTo(200);
        }

        assertThat(throttled).isPositive().isLessThan(20);
        assertThat(proxy.injectedFaults()).isEqualTo(counts(Map.of(Fault.SLOW_DOWN_503, (long) throttled)));
        assertThat(proxy.ledger().responses(503)).isEqualTo(throttled);
        assertThat(proxy.ledger().responses(200)).isEqualTo(25 - throttled);
        assertThat(server.requests()).hasSize(25 - throttled);
        assertThat(proxy.randomFaults()).isNull();
    }

    @Test
    void aQueuedFaultGoesBeforeTheRandomOnesAndTakesNoDraw() throws Exception {
        ShapingProxy proxy = proxy(server());
        RawHttpClient client = client(proxy);
        // seed 0 draws 0.73 (no fault) then 0.24 (a 500): a draw taken by the queued fault would swap them
        Random seedZero = new Random(0);
        assertThat(seedZero.nextDouble()).isGreaterThanOrEqualTo(0.5);
        assertThat(seedZero.nextDouble()).isLessThan(0.5);
        proxy.setRandomFaults(RandomFaults.seeded(0).with(Fault.SERVER_ERROR_500, 0.5));
        proxy.failNext(Fault.SLOW_DOWN_503);

        assertThat(head(client, "/head").status()).as("a HEAD draws nothing").isEqualTo(200);
        assertThat(get(client, "/queued").status()).isEqualTo(503);
        assertThat(get(client, "/first-draw").status()).isEqualTo(200);
        assertThat(get(client, "/second-draw").status()).isEqualTo(500);
        assertThat(proxy.injectedFaults())
                .isEqualTo(counts(Map.of(Fault.SLOW_DOWN_503, 1L, Fault.SERVER_ERROR_500, 1L)));
    }

    @Test
    void aCuttingFaultOnAResponseWithoutBodyIsNotCounted() throws Exception {
        ScriptedServer server = server((request, in, out) -> {
            out.write("HTTP/1.1 204 No Content\r\n\r\n".getBytes(US_ASCII));
            return true;
        });
        ShapingProxy proxy = proxy(server);
        RawHttpClient client = client(proxy);
        proxy.failNext(Fault.TRUNCATED_BODY);
        proxy.failNext(Fault.RESET_MID_BODY);

        assertThat(get(client, "/empty").status()).isEqualTo(204);
        assertThat(get(client, "/empty").status()).isEqualTo(204);

        assertThat(proxy.pendingFaults()).isZero();
        assertThat(proxy.injectedFaults()).isEqualTo(counts(Map.of()));
    }

    @Test
    void cutsAreCountedWhenTheyCut() throws Exception {
        ShapingProxy proxy = proxy(server());
        proxy.failNext(Fault.TRUNCATED_BODY);
        proxy.failNext(Fault.RESET_MID_BODY);

        for (int i = 0; i < 2; i++) {
            RawHttpClient client = client(proxy);
            client.send("GET /cut HTTP/1.1\nHost: proxy");
            assertThatThrownBy(() -> client.read("GET")).isInstanceOf(IOException.class);
        }

        assertThat(proxy.injectedFaults())
                .isEqualTo(counts(Map.of(Fault.TRUNCATED_BODY, 1L, Fault.RESET_MID_BODY, 1L)));
    }

    @Test
    void theRateLimitLetsABurstThroughThenRefusesUntilTokensComeBack() throws Exception {
        ScriptedServer server = server();
        ShapingProxy proxy = proxy(server);
        RawHttpClient client = client(proxy);
        proxy.setRequestRateLimit(2, 3, now::get); // a token every 500 ms

        assertThat(get(client, "/1").status()).isEqualTo(200);
        assertThat(head(client, "/2").status()).isEqualTo(200);
        assertThat(get(client, "/3").status()).isEqualTo(200);
        RawHttpClient.Response refused = get(client, "/4");
        RawHttpClient.Response refusedHead = head(client, "/5");
        now.addAndGet(499_000_000L);
        RawHttpClient.Response stillRefused = get(client, "/6");
        now.addAndGet(1_000_000L);
        RawHttpClient.Response refilled = get(client, "/7");
        RawHttpClient.Response refusedAgain = get(client, "/8");

        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.payload()).asString(US_ASCII).contains("<Code>SlowDown</Code>");
        assertThat(refusedHead.status()).isEqualTo(503);
        assertThat(refusedHead.payload()).as("a HEAD's answer has no body").isEmpty();
        assertThat(stillRefused.status()).isEqualTo(503);
        assertThat(refilled.status()).isEqualTo(200);
        assertThat(refusedAgain.status()).isEqualTo(503);
        assertThat(targets(server)).containsExactly("/1", "/2", "/3", "/7");
        assertThat(proxy.rateLimitedRequests()).isEqualTo(4);
        assertThat(proxy.injectedFaults()).isEqualTo(counts(Map.of(Fault.SLOW_DOWN_503, 4L)));
        assertThat(proxy.ledger().responses(503)).isEqualTo(4);
        assertThat(proxy.ledger().responses(200)).isEqualTo(4);
    }

    @Test
    void aRefusedRequestTakesNoTokenAndNoQueuedFault() throws Exception {
        ShapingProxy proxy = proxy(server());
        RawHttpClient client = client(proxy);
        proxy.setRequestRateLimit(1, 1, now::get);
        assertThat(get(client, "/first").status()).isEqualTo(200);
        proxy.failNext(Fault.SERVER_ERROR_500);

        for (int i = 0; i < 10; i++) {
            assertThat(get(client, "/refused").status()).isEqualTo(503);
        }
        now.addAndGet(1_000_000_000L); // one token: ten refusals before took none of it

        assertThat(proxy.pendingFaults()).isEqualTo(1);
        assertThat(get(client, "/admitted").status()).isEqualTo(500);
        assertThat(proxy.rateLimitedRequests()).isEqualTo(10);
    }

    @Test
    void theRateLimitTurnsOff() throws Exception {
        ShapingProxy proxy = proxy(server());
        RawHttpClient client = client(proxy);

        proxy.setRequestRateLimit(1, 1, now::get);
        get(client, "/1");
        assertThat(get(client, "/2").status()).isEqualTo(503);
        proxy.clearRequestRateLimit();
        assertThat(get(client, "/3").status()).isEqualTo(200);
        proxy.setRequestRateLimit(1, 1, now::get);
        get(client, "/4");
        proxy.setRequestRateLimit(0, 1); // a rate of 0 is off too, whatever the burst
        assertThat(get(client, "/5").status()).isEqualTo(200);
        proxy.setRequestRateLimit(-1, 0);
        assertThat(get(client, "/6").status()).isEqualTo(200);

        assertThat(proxy.rateLimitedRequests()).isEqualTo(1);
    }

    @Test
    void aRateLimitOutOfRangeIsRefused() throws Exception {
        ShapingProxy proxy = proxy(server());

        assertThatThrownBy(() -> proxy.setRequestRateLimit(10, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("burst")
                .hasMessageContaining(": 0");
        assertThatThrownBy(() -> proxy.setRequestRateLimit(Double.NaN, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NaN");
        assertThatThrownBy(() -> proxy.setRequestRateLimit(2e6, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestsPerSecond");
    }

    @Test
    void openConnectionsGoBackToZeroOnceClientsClose() throws Exception {
        ShapingProxy proxy = proxy(server());
        List<RawHttpClient> clients = List.of(client(proxy), client(proxy), client(proxy));
        for (RawHttpClient client : clients) {
            get(client, "/x"); // answered, so the proxy has surely taken the connection on
        }
        assertThat(proxy.openConnections()).isEqualTo(3);

        clients.get(0).close();
        assertThat(proxy.awaitOpenConnections(2, WAIT)).isTrue();
        for (RawHttpClient client : clients) {
            client.close();
        }

        assertThat(proxy.awaitOpenConnections(0, WAIT)).isTrue();
        assertThat(proxy.openConnections()).isZero();
        assertThat(proxy.ledger().connectionsOpened()).isEqualTo(3);
    }

    @Test
    void theLedgerCountsResponsesByStatusUntilReset() throws Exception {
        ScriptedServer server = server((request, in, out) -> {
            String status = request.startLinePart(1).equals("/missing") ? "404 Not Found" : "200 OK";
            out.write(("HTTP/1.1 " + status + "\r\nContent-Length: 0\r\n\r\n").getBytes(US_ASCII));
            return true;
        });
        ShapingProxy proxy = proxy(server);
        RawHttpClient client = client(proxy);
        proxy.failNext(Fault.SLOW_DOWN_503);

        get(client, "/throttled");
        get(client, "/missing");
        get(client, "/missing");
        get(client, "/there");

        ProxyLedger ledger = proxy.ledger();
        assertThat(ledger.responses(503)).isEqualTo(1);
        assertThat(ledger.responses(404)).isEqualTo(2);
        assertThat(ledger.responses(200)).isEqualTo(1);
        assertThat(ledger.responses(500)).isZero();
        ledger.reset();
        assertThat(ledger.responses(404)).isZero();
        assertThat(proxy.injectedFaults())
                .as("fault counts outlive a ledger reset")
                .containsEntry(Fault.SLOW_DOWN_503, 1L);
    }

    /** Sends a GET to {@code target} that {@link Fault#FIRST_BYTE_DELAY} holds until the test ends the hold. */
    private static void holdAHead(ShapingProxy proxy, RawHttpClient client, String target) throws Exception {
        proxy.setFaultFirstByteDelay(FOR_EVER);
        proxy.failNext(Fault.FIRST_BYTE_DELAY);
        client.send("GET " + target + " HTTP/1.1\nHost: proxy");
        assertThat(proxy.awaitHeldHeads(1, WAIT)).isTrue();
    }

    /** The statuses of {@code count} GETs, one after another, through a fresh proxy under {@code plan}. */
    private List<Integer> statusesOfGets(RandomFaults plan, int count) throws Exception {
        ShapingProxy proxy = proxy(server());
        RawHttpClient client = client(proxy);
        proxy.setRandomFaults(plan);
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            statuses.add(get(client, "/g" + i).status());
        }
        return statuses;
    }

    /** Every fault with its count in {@code applied}, 0 for the others, as the proxy reports them. */
    private static Map<Fault, Long> counts(Map<Fault, Long> applied) {
        Map<Fault, Long> counts = new EnumMap<>(Fault.class);
        for (Fault fault : Fault.values()) {
            counts.put(fault, applied.getOrDefault(fault, 0L));
        }
        return counts;
    }

    private static List<String> targets(ScriptedServer server) {
        List<String> targets = new ArrayList<>();
        for (MessageHead request : server.requests()) {
            targets.add(request.startLine().split(" ")[1]);
        }
        return targets;
    }

    private static RawHttpClient.Response get(RawHttpClient client, String target) throws IOException {
        client.send("GET " + target + " HTTP/1.1\nHost: proxy");
        return client.read("GET");
    }

    private static RawHttpClient.Response head(RawHttpClient client, String target) throws IOException {
        client.send("HEAD " + target + " HTTP/1.1\nHost: proxy");
        return client.read("HEAD");
    }

    private ScriptedServer server() throws IOException {
        return server(ScriptedServer.answering(OBJECT));
    }

    private ScriptedServer server(ScriptedServer.Handler handler) throws IOException {
        return bench.server(handler);
    }

    private ShapingProxy proxy(ScriptedServer server) throws IOException {
        return bench.proxy(server.endpoint(), NetworkModel.unshaped());
    }

    private RawHttpClient client(ShapingProxy proxy) throws IOException {
        return bench.client(proxy);
    }
}
