package io.rangefetch.it;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.it.server.S3ServerTestBase;
import io.rangefetch.testing.ProxiedS3;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Base of the suites whose clients reach the server through a {@link ShapingProxy}: its ledger counts the
 * requests on the wire whatever the client (the CRT's included), independently of Rangefetch's statistics, and
 * its {@link NetworkModel} shapes what they see. One proxy ({@link ProxiedS3} in front of the class's server)
 * serves every test of the class; it starts after the server, before the subclass's own {@code @BeforeAll}
 * methods, and closes before the server.
 *
 * <p>The proxy forwards plain HTTP only: an https endpoint (S3 itself) is reached directly, and the tests that
 * count requests are skipped there.
 */
public abstract class ProxiedS3ServerTestBase extends S3ServerTestBase {
    protected static final Duration THREAD_GRACE = Duration.ofSeconds(10);
    /** Every thread a factory starts (fetch threads, and any helper it may add) is named so. */
    protected static final String RANGEFETCH_THREADS = "rangefetch-";

    private final NetworkModel model;
    private ProxiedS3 proxiedS3;
    // the proxy of proxiedS3, null where the server is not plain HTTP
    private ShapingProxy proxy;

    /** @param model how the proxy shapes the responses of this suite's clients */
    protected ProxiedS3ServerTestBase(NetworkModel model) {
        this.model = requireNonNull(model, "model is null");
    }

    @BeforeAll
    final void startProxy() throws IOException {
        // the server is the base class's, for the whole class: the fixture closes only the proxy
        proxiedS3 = ProxiedS3.inFrontOf(server(), model);
        proxy = proxiedS3.proxy().orElse(null);
    }

    @AfterAll
    final void closeProxy() {
        if (proxiedS3 != null) {
            proxiedS3.close();
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

    /**
     * Makes the next GETs through the proxy fail with {@code faults}, one each, in order; a test that injects
     * faults is skipped where there is no proxy.
     */
    protected final void failNextGets(Fault... faults) {
        ShapingProxy faulting = faultingProxy();
        for (Fault fault : faults) {
            faulting.failNext(fault);
        }
    }

    /**
     * The proxy, for a test that sets its faults, limits or delays itself (and puts them back: one proxy serves
     * the whole class); a test that needs it is skipped where there is no proxy.
     */
    protected final ShapingProxy faultingProxy() {
        assumeTrue(proxy != null, "no faults: " + server().endpoint() + " is not plain HTTP, so no proxy");
        return proxy;
    }

    /** The server as clients see it: behind the proxy where there is one. */
    protected final S3Server proxied() {
        return proxiedS3.proxied();
    }

    /**
     * Builds a factory with {@code config} on a fresh sync client through the proxy, with {@code interceptors},
     * runs the body, closes both; every thread the factory started must then end, whatever the body did.
     */
    protected final void withFactory(StreamConfig config, FactoryBody body, ExecutionInterceptor... interceptors)
            throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        // the SDK's own retries off: Rangefetch retries and resumes every GET itself
        try (S3Client s3 = S3Clients.syncWithoutSdkRetries(proxied(), interceptors);
                StreamFactory factory = StreamFactory.create(s3, config)) {
            body.run(factory);
        }
        threads.assertNoNewThreads(RANGEFETCH_THREADS, THREAD_GRACE);
    }

    @FunctionalInterface
    protected interface FactoryBody {
        void run(StreamFactory factory) throws Exception;
    }

    /**
     * Asserts that {@code bytes} are {@code whole}'s from {@code position} on; on a mismatch names the first wrong
     * byte rather than print megabytes.
     */
    protected static void assertSameBytes(byte[] whole, byte[] bytes, long position, String what) {
        assertThat(position + bytes.length).as("end of %s", what).isLessThanOrEqualTo(whole.length);
        byte[] expected = Arrays.copyOfRange(whole, (int) position, (int) position + bytes.length);
        assertThat(Arrays.mismatch(bytes, expected))
                .as("first wrong byte of %s", what)
                .isEqualTo(-1);
    }
}
