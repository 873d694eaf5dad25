package io.rangefetch.it;

import static java.util.Objects.requireNonNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.it.proxy.NetworkModel;
import io.rangefetch.it.proxy.ProxyLedger;
import io.rangefetch.it.proxy.ShapingProxy;
import io.rangefetch.it.server.S3Server;
import io.rangefetch.it.server.S3ServerTestBase;
import java.io.IOException;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Base of the suites whose clients reach the server through a {@link ShapingProxy}: its ledger counts the
 * requests on the wire whatever the client (the CRT's included), independently of Rangefetch's statistics, and
 * its {@link NetworkModel} shapes what they see. One proxy serves every test of the class; it starts after the
 * server, before the subclass's own {@code @BeforeAll} methods, and closes before the server.
 *
 * <p>The proxy forwards plain HTTP only: an https endpoint (S3 itself) is reached directly, and the tests that
 * count requests are skipped there.
 */
abstract class ProxiedS3ServerTestBase extends S3ServerTestBase {
    private final NetworkModel model;
    private ShapingProxy proxy;

    /** @param model how the proxy shapes the responses of this suite's clients */
    protected ProxiedS3ServerTestBase(NetworkModel model) {
        this.model = requireNonNull(model, "model is null");
    }

    @BeforeAll
    final void startProxy() throws IOException {
        if ("http".equalsIgnoreCase(server().endpoint().getScheme())) {
            proxy = ShapingProxy.start(server().endpoint(), model);
        }
    }

    @AfterAll
    final void closeProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /** The proxy's ledger, emptied; a test that counts requests is skipped where there is no proxy. */
    protected final ProxyLedger countingLedger() {
        assumeTrue(proxy != null, "no request counts: " + server().endpoint() + " is not plain HTTP, so no proxy");
        return countingLedgerIfProxied().orElseThrow();
    }

    /**
     * The proxy's ledger, emptied, where there is a proxy: for a test that checks more than requests, and counts
     * them only where it can.
     */
    protected final Optional<ProxyLedger> countingLedgerIfProxied() {
        if (proxy == null) {
            return Optional.empty();
        }
        proxy.ledger().reset();
        return Optional.of(proxy.ledger());
    }

    /** The server as clients see it: behind the proxy where there is one. */
    protected final S3Server proxied() {
        return proxy == null ? server() : server().reachedAt(proxy.endpoint());
    }
}
