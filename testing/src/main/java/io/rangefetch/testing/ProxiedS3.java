package io.rangefetch.testing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.ExternalS3Endpoint;
import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import java.io.IOException;
import java.util.Optional;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 server with the {@link ShapingProxy} in front of it, and SDK clients for both: what the integration suites,
 * the adapters' end-to-end tests and the benchmarks' runner stand on. Data goes to the server directly ({@link
 * #directClient()}); the code under test goes through the proxy ({@link #proxied()}, {@link #proxiedClient}), whose
 * ledger counts every request on the wire whatever the client, and whose {@link NetworkModel} shapes and faults them.
 *
 * <p>Design: written once so that every module starts, reaches and stops a server the same way. Which server is
 * the caller's choice ({@link #start(ServerStart, NetworkModel)} with {@code MinioServer::start}, {@code
 * S3ProxyServer::start}, ...), or {@link #startAvailable} picks the one CI and a laptop both have. The proxy forwards
 * plain HTTP only, so an https endpoint (S3 itself) is reached directly: {@link #proxy()} is then empty, and tests
 * that count requests or inject faults skip themselves. Closing stops what this fixture started: the proxy, then the
 * server unless it was the caller's ({@link #inFrontOf}). Thread-safe once started.
 */
public final class ProxiedS3 implements AutoCloseable {

    private final S3Server server;
    private final boolean ownsServer;
    private final Optional<ShapingProxy> proxy;

    private ProxiedS3(S3Server server, boolean ownsServer, Optional<ShapingProxy> proxy) {
        this.server = server;
        this.ownsServer = ownsServer;
        this.proxy = proxy;
    }

    /** Starts a server: a method reference such as {@code MinioServer::start} or {@code S3ProxyServer::start}. */
    @FunctionalInterface
    public interface ServerStart {
        S3Server start() throws Exception;
    }

    /**
     * Starts the server {@code start} names and a proxy with {@code model} in front of it; closing stops both. An
     * exception of {@code start} (a test's abort where there is no MinIO, say) comes through as it is.
     */
    public static ProxiedS3 start(ServerStart start, NetworkModel model) throws Exception {
        requireNonNull(start, "start is null");
        requireNonNull(model, "model is null");
        S3Server server = requireNonNull(start.start(), "the server start answered null");
        try {
            return new ProxiedS3(server, true, proxyFor(server, model));
        } catch (IOException | RuntimeException | Error e) {
            closeAfterFailure(server, e);
            throw e;
        }
    }

    /**
     * The server of {@code ExternalS3Endpoint.ENDPOINT_VARIABLE} when it is set, else MinIO when a {@code minio}
     * binary is found, else S3Proxy in this JVM; the proxy with {@code model} in front of it.
     */
    public static ProxiedS3 startAvailable(NetworkModel model) throws Exception {
        return start(ProxiedS3::availableServer, model);
    }

    /**
     * A proxy with {@code model} in front of a server the caller started and keeps: closing stops the proxy only.
     * For a test base that owns its server for a whole class and proxies only some of its suites.
     */
    public static ProxiedS3 inFrontOf(S3Server server, NetworkModel model) throws IOException {
        requireNonNull(server, "server is null");
        requireNonNull(model, "model is null");
        return new ProxiedS3(server, false, proxyFor(server, model));
    }

    private static S3Server availableServer() throws Exception {
        if (ExternalS3Endpoint.configured()) {
            return ExternalS3Endpoint.fromEnvironment();
        }
        return MinioServer.binaryAvailable() ? MinioServer.start() : S3ProxyServer.start();
    }

    private static Optional<ShapingProxy> proxyFor(S3Server server, NetworkModel model) throws IOException {
        if (!"http".equalsIgnoreCase(server.endpoint().getScheme())) {
            return Optional.empty();
        }
        return Optional.of(ShapingProxy.start(server.endpoint(), model));
    }

    /** The server, reached directly: for writing data and for checks that must not be counted. */
    public S3Server server() {
        return server;
    }

    /** The server as the code under test reaches it: through the proxy where there is one. */
    public S3Server proxied() {
        return proxy.map(p -> server.reachedAt(p.endpoint())).orElse(server);
    }

    /** The proxy in front of the server; empty when the server is not plain HTTP. */
    public Optional<ShapingProxy> proxy() {
        return proxy;
    }

    /** A new sync client (Apache) on the server directly; the caller closes it. */
    public S3Client directClient() {
        return S3Clients.sync(server);
    }

    /** A new sync client (Apache) through the proxy, with {@code interceptors}; the caller closes it. */
    public S3Client proxiedClient(ExecutionInterceptor... interceptors) {
        return S3Clients.sync(proxied(), interceptors);
    }

    @Override
    public void close() {
        try {
            proxy.ifPresent(ShapingProxy::close);
        } finally {
            if (ownsServer) {
                server.close();
            }
        }
    }

    private static void closeAfterFailure(S3Server server, Throwable failure) {
        try {
            server.close();
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        return proxy.map(p -> server.name() + " through the proxy at " + p.endpoint())
                .orElse(server.name() + " at " + server.endpoint() + ", not proxied");
    }
}
