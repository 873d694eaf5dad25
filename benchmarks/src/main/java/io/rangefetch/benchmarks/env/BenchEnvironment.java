package io.rangefetch.benchmarks.env;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.readers.S3Target;
import io.rangefetch.benchmarks.run.FaultInjector;
import io.rangefetch.benchmarks.run.FaultPlan;
import io.rangefetch.benchmarks.run.Traffic;
import io.rangefetch.benchmarks.run.TrafficCounter;
import io.rangefetch.testing.ProxiedS3;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.RandomFaults;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.ExternalS3Endpoint;
import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Where a run's readers send their requests: an S3 server with a bucket, and, for an embedded server, the
 * shaping proxy in front of it that models the network and counts every request. Data goes to the server
 * directly ({@link #directClient()}); readers go through {@link #target()}.
 *
 * <p>The proxy also injects the faults of a {@link FaultPlan} ({@link #faults()}) for the resilience
 * scenarios. An external endpoint (real S3) has no proxy: its network is real, nothing is modelled or
 * injected and requests are not counted. Closing stops the proxy and any server this environment started
 * (a {@link ProxiedS3}, the fixture the tests start their servers with too).
 */
public final class BenchEnvironment implements AutoCloseable {

    private static final int SLOW_DOWN_STATUS = 503;

    private final S3Server server;
    private final String bucket;
    // the embedded server and its proxy; empty for an external endpoint
    private final Optional<ProxiedS3> embedded;
    private final Optional<ShapingProxy> proxy;
    private final S3Target target;

    private BenchEnvironment(S3Server server, String bucket, Optional<ProxiedS3> embedded, S3Target target) {
        this.server = server;
        this.bucket = bucket;
        this.embedded = embedded;
        this.proxy = embedded.flatMap(ProxiedS3::proxy);
        this.target = target;
    }

    /**
     * Starts an embedded server and the proxy with {@code model} in front of it.
     *
     * @param minioData where MinIO keeps its data between runs; empty for a temporary directory
     */
    public static BenchEnvironment local(ServerKind kind, Optional<Path> minioData, NetworkModel model, String bucket)
            throws Exception {
        requireNonNull(kind, "kind is null");
        requireNonNull(minioData, "minioData is null");
        requireNonNull(model, "model is null");
        requireNonNull(bucket, "bucket is null");
        ProxiedS3 proxiedS3 = ProxiedS3.start(
                () -> switch (kind) {
                    case MINIO -> minioData.isPresent() ? MinioServer.start(minioData.get()) : MinioServer.start();
                    case S3PROXY -> S3ProxyServer.start();
                },
                model);
        try {
            S3Server server = proxiedS3.server();
            server.createBucket(bucket);
            // both embedded servers listen on plain HTTP, so there is always a proxy
            ShapingProxy proxy = proxiedS3.proxy().orElseThrow();
            S3Target target = new S3Target(
                    proxy.endpoint(), server.region(), bucket, server.accessKey(), server.secretKey(), true);
            return new BenchEnvironment(server, bucket, Optional.of(proxiedS3), target);
        } catch (RuntimeException | Error e) {
            closeQuietly(proxiedS3, e);
            throw e;
        }
    }

    /** Uses an endpoint this process does not own, as is. */
    public static BenchEnvironment external(ExternalS3Endpoint endpoint) {
        requireNonNull(endpoint, "endpoint is null");
        String bucket = endpoint.bucket()
                .orElseThrow(() -> new IllegalArgumentException("an external endpoint needs a bucket"));
        URI uri = endpoint.endpoint();
        // AWS wants bucket names in the host; other stores, like the local servers, in the path
        boolean pathStyle = uri.getHost() == null || !uri.getHost().endsWith(".amazonaws.com");
        S3Target target =
                new S3Target(uri, endpoint.region(), bucket, endpoint.accessKey(), endpoint.secretKey(), pathStyle);
        return new BenchEnvironment(endpoint, bucket, Optional.empty(), target);
    }

    /** Where readers send requests: the proxy, or the external endpoint. */
    public S3Target target() {
        return target;
    }

    public String bucket() {
        return bucket;
    }

    /** A client that reaches the server without the proxy, for writing data; the caller closes it. */
    public S3Client directClient() {
        return S3Clients.sync(server);
    }

    /** The modelled network, if requests go through the proxy. */
    public Optional<NetworkModel> network() {
        return proxy.map(ShapingProxy::model);
    }

    /** Counts what readers send through the proxy; counts nothing without one. */
    public TrafficCounter traffic() {
        return proxy.<TrafficCounter>map(LedgerCounter::new).orElseGet(TrafficCounter::none);
    }

    /** Every request the proxy received since the counter's last reset, in order; empty without a proxy. */
    public List<ProxiedRequest> requestLog() {
        return proxy.map(p -> p.ledger().requests()).orElse(List.of());
    }

    /** Injects faults through the proxy; without one, refuses any. */
    public FaultInjector faults() {
        return proxy.<FaultInjector>map(ProxyFaults::new).orElseGet(FaultInjector::none);
    }

    /** The server, for reports: e.g. {@code minio at http://127.0.0.1:41234}. */
    public String describeServer() {
        return server.toString();
    }

    /** The network, for reports. */
    public String describeNetwork() {
        return proxy.map(p -> "modelled by a proxy on 127.0.0.1: " + p.model().describe())
                .orElse("real, not modelled; requests not counted (no proxy in front of an external endpoint)");
    }

    @Override
    public void close() {
        embedded.ifPresentOrElse(ProxiedS3::close, server::close);
    }

    private static void closeQuietly(AutoCloseable resource, Throwable cause) {
        if (resource == null) {
            return;
        }
        try {
            resource.close();
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * The proxy's ledger as the runner's counter. The proxy counts its injected faults over its whole life,
     * so the counter keeps the count at its last reset and answers what came since.
     */
    private static final class LedgerCounter implements TrafficCounter {
        private final ShapingProxy proxy;
        private long delayedBefore;

        LedgerCounter(ShapingProxy proxy) {
            this.proxy = proxy;
        }

        @Override
        public void reset() {
            proxy.ledger().reset();
            delayedBefore = delayedFirstBytes();
        }

        @Override
        public Traffic read() {
            ProxyLedger ledger = proxy.ledger();
            return new Traffic(
                    ledger.gets(),
                    ledger.heads(),
                    ledger.responseBodyBytes(),
                    ledger.responses(SLOW_DOWN_STATUS),
                    delayedFirstBytes() - delayedBefore,
                    ledger.lists());
        }

        private long delayedFirstBytes() {
            return proxy.injectedFaults().getOrDefault(Fault.FIRST_BYTE_DELAY, 0L);
        }
    }

    /** A {@link FaultPlan} as the proxy's random faults and request-rate limit. */
    private record ProxyFaults(ShapingProxy proxy) implements FaultInjector {
        @Override
        public void apply(FaultPlan plan) {
            requireNonNull(plan, "plan is null");
            clear();
            if (!plan.probabilities().isEmpty()) {
                proxy.setFaultFirstByteDelay(plan.firstByteDelay());
                proxy.setRandomFaults(new RandomFaults(plan.seed(), plan.probabilities()));
            }
            plan.rateLimit().ifPresent(limit -> proxy.setRequestRateLimit(limit.requestsPerSecond(), limit.burst()));
        }

        @Override
        public void clear() {
            proxy.clearRandomFaults();
            proxy.clearRequestRateLimit();
        }
    }
}
