package io.rangefetch.testing.server;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Optional;
import javax.net.ssl.TrustManager;

/** {@link S3Server#reachedAt}: a server seen at another endpoint; everything else is the server's. */
final class S3ServerAtEndpoint implements S3Server {

    private final S3Server server;
    private final URI endpoint;

    S3ServerAtEndpoint(S3Server server, URI endpoint) {
        this.server = requireNonNull(server, "server is null");
        this.endpoint = requireNonNull(endpoint, "endpoint is null");
    }

    @Override
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public String accessKey() {
        return server.accessKey();
    }

    @Override
    public String secretKey() {
        return server.secretKey();
    }

    @Override
    public Optional<TrustManager[]> trustManagers() {
        return server.trustManagers();
    }

    @Override
    public String region() {
        return server.region();
    }

    @Override
    public String name() {
        return server.name();
    }

    @Override
    public boolean overwritesAtomically() {
        return server.overwritesAtomically();
    }

    @Override
    public String testBucket(String preferredName) {
        return server.testBucket(preferredName);
    }

    @Override
    public void close() {
        // a view: the server is not ours to stop
    }

    @Override
    public String toString() {
        return server + " reached at " + endpoint;
    }
}
