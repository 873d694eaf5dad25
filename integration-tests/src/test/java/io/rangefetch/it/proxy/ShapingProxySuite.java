package io.rangefetch.it.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.rangefetch.it.server.S3ServerTestBase;
import io.rangefetch.testing.ProxiedS3;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * The proxy between the AWS SDK's clients (Apache, Netty, CRT) and a real S3 server: what goes through
 * arrives intact, the ledger counts it exactly, and the network model is felt. Timing is only ever
 * asserted as a lower bound. Each test gets its own proxy, so counts are its own.
 */
abstract class ShapingProxySuite extends S3ServerTestBase {

    // not a multiple of any buffer or slice size
    private static final int LENGTH = 5 * 1024 * 1024 + 17;

    private final byte[] content = randomBytes(LENGTH, 11);
    private final byte[] eightMegabytes = randomBytes(8_000_000, 12);
    private ThreadLeakChecker threads;
    private ProxiedS3 proxiedServer;
    private ShapingProxy proxy;

    @BeforeAll
    void writeObjects() {
        try (S3Client direct = S3Clients.sync(server())) {
            put(direct, "object", content);
            put(direct, "eight-megabytes", eightMegabytes);
        }
    }

    @BeforeEach
    void startProxy() throws Exception {
        threads = ThreadLeakChecker.snapshot();
        // a proxy of its own for each test, in front of the class's server (which the fixture leaves running)
        proxiedServer = ProxiedS3.inFrontOf(server(), NetworkModel.unshaped());
        proxy = proxiedServer.proxy().orElseThrow();
    }

    @AfterEach
    void closeProxyAndLeaveNoThread() {
        proxiedServer.close();
        threads.assertNoNewThreads(ShapingProxy.THREAD_NAME_PREFIX, Duration.ofSeconds(10));
    }

    @Test
    void everyClientKindGetsTheObjectsBytesAndIsCountedExactly() {
        try (S3Client sync = S3Clients.sync(proxied())) {
            assertThat(getBytes(sync, "object")).isEqualTo(content);
        }
        try (S3AsyncClient netty = S3Clients.nettyAsync(proxied())) {
            assertThat(getAsync(netty, "bytes=0-" + (LENGTH - 1))).isEqualTo(content);
        }
        try (S3AsyncClient crt = S3Clients.crtAsync(proxied())) {
            assertThat(getAsync(crt, "bytes=1000-1999")).isEqualTo(Arrays.copyOfRange(content, 1000, 2000));
        }

        ProxyLedger ledger = proxy.ledger();
        assertThat(ledger.gets()).isEqualTo(3);
        assertThat(ledger.requests()).hasSize(3);
        assertThat(ledger.responseBodyBytes()).isEqualTo(2L * LENGTH + 1000);
        assertThat(ledger.requests())
                .extracting(ProxiedRequest::status, ProxiedRequest::bodyBytes)
                .containsExactly(tuple(200, (long) LENGTH), tuple(206, (long) LENGTH), tuple(206, 1000L));
    }

    @Test
    void aPutThroughTheProxyStoresTheBytes() {
        byte[] uploaded = randomBytes(3 * 1024 * 1024, 13);
        byte[] uploadedAsync = randomBytes(2 * 1024 * 1024, 14);
        try (S3Client sync = S3Clients.sync(proxied());
                S3AsyncClient netty = S3Clients.nettyAsync(proxied())) {
            // the SDK sends Expect: 100-continue with a PutObject: the proxy must relay the server's 100
            put(sync, "uploaded", uploaded);
            netty.putObject(
                            request -> request.bucket(bucket()).key(key("uploaded-async")),
                            AsyncRequestBody.fromBytes(uploadedAsync))
                    .join();
        }

        try (S3Client direct = S3Clients.sync(server())) {
            assertThat(getBytes(direct, "uploaded")).isEqualTo(uploaded);
            assertThat(getBytes(direct, "uploaded-async")).isEqualTo(uploadedAsync);
        }
        assertThat(proxy.ledger().requests("PUT")).isEqualTo(2);
        assertThat(proxy.ledger().requests()).extracting(ProxiedRequest::status).containsOnly(200);
    }

    @Test
    void rangedGetHeadAndNotFoundPassThrough() {
        try (S3Client sync = S3Clients.sync(proxied())) {
            ResponseBytes<GetObjectResponse> range = sync.getObjectAsBytes(
                    request -> request.bucket(bucket()).key(key("object")).range("bytes=100-199"));
            HeadObjectResponse head =
                    sync.headObject(request -> request.bucket(bucket()).key(key("object")));
            assertThatThrownBy(() -> sync.getObjectAsBytes(
                            request -> request.bucket(bucket()).key(key("missing"))))
                    .isInstanceOf(NoSuchKeyException.class);
            assertThatThrownBy(() ->
                            sync.headObject(request -> request.bucket(bucket()).key(key("missing"))))
                    .isInstanceOf(NoSuchKeyException.class);

            assertThat(range.asByteArray()).isEqualTo(Arrays.copyOfRange(content, 100, 200));
            assertThat(range.response().contentRange()).isEqualTo("bytes 100-199/" + LENGTH);
            assertThat(head.contentLength()).isEqualTo(LENGTH);
        }

        ProxyLedger ledger = proxy.ledger();
        assertThat(ledger.gets()).isEqualTo(2);
        assertThat(ledger.heads()).isEqualTo(2);
        assertThat(ledger.requests())
                .extracting(ProxiedRequest::method, ProxiedRequest::rangeHeader, ProxiedRequest::status)
                .containsExactly(
                        tuple("GET", "bytes=100-199", 206),
                        tuple("HEAD", null, 200),
                        tuple("GET", null, 404),
                        tuple("HEAD", null, 404));
        assertThat(ledger.requests().get(0).bodyBytes()).isEqualTo(100);
        assertThat(ledger.requests().get(1).bodyBytes()).isZero();
        assertThat(ledger.requests().get(0).target()).endsWith(key("object"));
    }

    @Test
    void sequentialRequestsOfOneClientShareOneConnection() {
        try (S3Client sync = S3Clients.sync(proxied())) {
            put(sync, "kept-alive", randomBytes(100_000, 15));
            for (int i = 0; i < 3; i++) {
                sync.getObjectAsBytes(
                        request -> request.bucket(bucket()).key(key("object")).range("bytes=0-65535"));
                sync.headObject(request -> request.bucket(bucket()).key(key("object")));
            }
            assertThatThrownBy(() ->
                            sync.headObject(request -> request.bucket(bucket()).key(key("missing"))))
                    .isInstanceOf(NoSuchKeyException.class);
            sync.getObjectAsBytes(request -> request.bucket(bucket()).key(key("kept-alive")));
        }

        assertThat(proxy.ledger().requests()).hasSize(9);
        assertThat(proxy.ledger().connectionsOpened()).isEqualTo(1);
    }

    @Test
    void theLedgerCountsBodyBytesExactlyAndResets() {
        try (S3Client sync = S3Clients.sync(proxied())) {
            for (int i = 0; i < 4; i++) {
                int start = i * 1_000_000;
                String range = "bytes=" + start + "-" + (start + 12_344);
                sync.getObjectAsBytes(
                        request -> request.bucket(bucket()).key(key("object")).range(range));
            }
            ProxyLedger ledger = proxy.ledger();
            assertThat(ledger.gets()).isEqualTo(4);
            assertThat(ledger.responseBodyBytes()).isEqualTo(4 * 12_345);
            assertThat(ledger.responseBytes()).isGreaterThan(4 * 12_345);

            ledger.reset();
            assertThat(ledger.gets()).isZero();
            assertThat(ledger.requests()).isEmpty();
            assertThat(ledger.responseBodyBytes()).isZero();
            assertThat(ledger.responseBytes()).isZero();
            assertThat(ledger.connectionsOpened()).isZero();

            sync.headObject(request -> request.bucket(bucket()).key(key("object")));
            assertThat(ledger.heads()).isEqualTo(1);
            assertThat(ledger.gets()).isZero();
            assertThat(ledger.responseBodyBytes()).isZero();
        }
    }

    @Test
    void eachResponseWaitsAtLeastTheFirstByteDelay() {
        Duration delay = Duration.ofMillis(50);
        proxy.setModel(NetworkModel.unshaped().withFirstByteDelay(delay));
        try (S3Client sync = S3Clients.sync(proxied())) {
            // the connection is set up here, unmeasured
            sync.headObject(request -> request.bucket(bucket()).key(key("object")));
            long start = System.nanoTime();
            sync.getObjectAsBytes(
                    request -> request.bucket(bucket()).key(key("object")).range("bytes=0-99"));
            sync.headObject(request -> request.bucket(bucket()).key(key("object")));
            assertThatThrownBy(() ->
                            sync.headObject(request -> request.bucket(bucket()).key(key("missing"))))
                    .isInstanceOf(NoSuchKeyException.class);
            long elapsed = System.nanoTime() - start;

            assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(delay.multipliedBy(3));
        }
    }

    @Test
    void aConnectionCapIsFeltByTheSdk() {
        proxy.setModel(NetworkModel.unshaped().withConnectionBytesPerSecond(40_000_000));
        try (S3AsyncClient netty = S3Clients.nettyAsync(proxied())) {
            long start = System.nanoTime();
            byte[] got = netty.getObject(
                            request -> request.bucket(bucket()).key(key("eight-megabytes")),
                            AsyncResponseTransformer.toBytes())
                    .join()
                    .asByteArray();
            long elapsed = System.nanoTime() - start;

            assertThat(got).isEqualTo(eightMegabytes);
            // 8 MB at 40 MB/s is 200 ms; 64 KiB of burst may leave at once
            assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(Duration.ofMillis(180));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Fault.class, mode = EnumSource.Mode.EXCLUDE, names = "FIRST_BYTE_DELAY")
    void theSdkRetriesAnInjectedFaultAndEndsWithTheRightBytes(Fault fault) {
        proxy.failNext(fault);
        try (S3Client sync = S3Clients.sync(proxied())) {
            assertThat(getBytes(sync, "object")).isEqualTo(content);
        }

        assertThat(proxy.pendingFaults()).isZero();
        List<ProxiedRequest> requests = proxy.ledger().requests();
        assertThat(requests).hasSize(2);
        if (fault.answeredByProxy()) {
            assertThat(requests.get(0).status()).isEqualTo(fault == Fault.SLOW_DOWN_503 ? 503 : 500);
        } else {
            assertThat(requests.get(0).status()).isEqualTo(200);
            assertThat(requests.get(0).bodyBytes()).isEqualTo(LENGTH / 2);
        }
        assertThat(requests.get(1).bodyBytes()).isEqualTo(LENGTH);
        assertThat(proxy.injectedFaults()).containsEntry(fault, 1L);
    }

    @Test
    void aHeldHeadDelaysTheAnswerButFailsNothing() {
        // shorter than any SDK timeout: the one GET is answered late, not retried
        proxy.setFaultFirstByteDelay(Duration.ofMillis(200));
        proxy.failNext(Fault.FIRST_BYTE_DELAY);
        try (S3Client sync = S3Clients.sync(proxied())) {
            assertThat(getBytes(sync, "object")).isEqualTo(content);
        }

        assertThat(proxy.ledger().requests()).extracting(ProxiedRequest::status).containsExactly(200);
        assertThat(proxy.injectedFaults()).containsEntry(Fault.FIRST_BYTE_DELAY, 1L);
    }

    private S3Server proxied() {
        return proxiedServer.proxied();
    }

    private byte[] getBytes(S3Client client, String name) {
        return client.getObjectAsBytes(request -> request.bucket(bucket()).key(key(name)))
                .asByteArray();
    }

    private byte[] getAsync(S3AsyncClient client, String range) {
        return client.getObject(
                        request -> request.bucket(bucket()).key(key("object")).range(range),
                        AsyncResponseTransformer.toBytes())
                .join()
                .asByteArray();
    }
}
