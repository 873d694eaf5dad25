package io.rangefetch.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The fixture every module's end-to-end tests start their server through: the proxy sees exactly the requests of
 * the proxied clients, and closing stops what the fixture started and nothing else. On S3Proxy, which runs here.
 */
class ProxiedS3Test {
    private static final String BUCKET = "proxied-s3-test";

    @Test
    void theProxyCountsTheProxiedClientsRequestsAndNotTheDirectOnes() throws Exception {
        try (ProxiedS3 s3 = ProxiedS3.start(S3ProxyServer::start, NetworkModel.unshaped())) {
            s3.server().createBucket(BUCKET);
            ProxyLedger ledger = s3.proxy().orElseThrow().ledger();
            ledger.reset();

            try (S3Client direct = s3.directClient()) {
                direct.putObject(put -> put.bucket(BUCKET).key("object"), RequestBody.fromBytes(new byte[100]));
            }
            assertThat(ledger.requests()).as("requests sent directly").isEmpty();

            try (S3Client proxied = s3.proxiedClient()) {
                byte[] got = proxied.getObjectAsBytes(
                                get -> get.bucket(BUCKET).key("object").range("bytes=10-19"))
                        .asByteArray();
                assertThat(got).hasSize(10);
            }
            assertThat(ledger.gets()).isEqualTo(1);
            assertThat(ledger.responseBodyBytes()).isEqualTo(10);
            assertThat(s3.proxied().endpoint())
                    .isEqualTo(s3.proxy().orElseThrow().endpoint());
            assertThat(s3.proxied().accessKey()).isEqualTo(s3.server().accessKey());
        }
    }

    @Test
    void closingStopsTheProxyAndTheServerItStarted() throws Exception {
        URI server;
        URI proxy;
        try (ProxiedS3 s3 = ProxiedS3.start(S3ProxyServer::start, NetworkModel.unshaped())) {
            server = s3.server().endpoint();
            proxy = s3.proxy().orElseThrow().endpoint();
            assertThat(accepts(server)).isTrue();
            assertThat(accepts(proxy)).isTrue();
        }
        assertThat(accepts(proxy)).as("the proxy after close").isFalse();
        assertThat(accepts(server)).as("the server after close").isFalse();
    }

    @Test
    void aProxyInFrontOfTheCallersServerLeavesTheServerRunning() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start()) {
            URI proxy;
            try (ProxiedS3 s3 = ProxiedS3.inFrontOf(server, NetworkModel.unshaped())) {
                assertThat(s3.server()).isSameAs(server);
                proxy = s3.proxy().orElseThrow().endpoint();
            }
            assertThat(accepts(proxy)).as("the proxy after close").isFalse();
            assertThat(accepts(server.endpoint())).as("the caller's server").isTrue();
        }
    }

    @Test
    void anHttpsEndpointIsReachedDirectlyWithoutAProxy() throws Exception {
        S3Server https = new FixedEndpoint(URI.create("https://s3.eu-west-1.amazonaws.com"));
        try (ProxiedS3 s3 = ProxiedS3.start(() -> https, NetworkModel.s3InRegion())) {
            assertThat(s3.proxy()).isEmpty();
            assertThat(s3.proxied()).isSameAs(https);
            assertThat(s3.toString()).contains("not proxied");
        }
        assertThat(((FixedEndpoint) https).closed)
                .as("the server it started is closed")
                .isTrue();
    }

    @Test
    void aServerThatFailsToStartFailsTheFixtureWithItsOwnException() {
        IOException refused = new IOException("no server today");

        assertThatThrownBy(() -> ProxiedS3.start(
                        () -> {
                            throw refused;
                        },
                        NetworkModel.unshaped()))
                .isSameAs(refused);
    }

    @Test
    void theProxyThreadsEndWithTheFixture() throws Exception {
        ProxiedS3 s3 = ProxiedS3.start(S3ProxyServer::start, NetworkModel.unshaped());
        s3.close();

        assertThat(Thread.getAllStackTraces().keySet())
                .extracting(Thread::getName)
                .noneMatch(name -> name.startsWith(ShapingProxy.THREAD_NAME_PREFIX));
    }

    private static boolean accepts(URI endpoint) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 2_000);
            return true;
        } catch (ConnectException refused) {
            return false;
        }
    }

    /** An endpoint nothing listens on for this test: the fixture only looks at its scheme. */
    private static final class FixedEndpoint implements S3Server {
        private final URI endpoint;
        private volatile boolean closed;

        FixedEndpoint(URI endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public URI endpoint() {
            return endpoint;
        }

        @Override
        public String accessKey() {
            return "access";
        }

        @Override
        public String secretKey() {
            return "secret";
        }

        @Override
        public String name() {
            return "fixed";
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
