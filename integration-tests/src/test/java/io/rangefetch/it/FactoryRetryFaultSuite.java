package io.rangefetch.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The fault suite through Rangefetch directly ({@link FactoryEntryPoint}), and what only a caller who builds the
 * client can try: clients built with every kind of SDK retries of their own, and a request-rate limit lifted from
 * an interceptor on the factory's client. Subclassed once per backend.
 */
abstract class FactoryRetryFaultSuite extends RetryFaultSuite {
    private static final long START = 5L * 1024 * 1024;
    private static final int LENGTH = 1024 * 1024;
    private static final StreamConfig CONFIG = StreamConfig.fromProperties(settings(), "");

    @Override
    protected EntryPoint entryPoint(Map<String, String> settings) {
        return FactoryEntryPoint.create(proxied(), settings);
    }

    private OpenOptions known() {
        return OpenOptions.builder().length(SIZE).etag(etag()).build();
    }

    /**
     * How an engine may have built the S3 client it hands Rangefetch: each retries on its own, and would send a
     * 503'd GET again beneath Rangefetch (hiding the 503 from its governor) were its requests not sent once.
     */
    enum RetryingClient {
        /** The SDK's defaults: the standard strategy, 3 attempts. */
        SYNC_SDK_DEFAULTS,
        /** A strategy of many attempts, as Iceberg builds its client from {@code s3.retry.*}. */
        SYNC_TEN_ATTEMPTS,
        /** The legacy retry policy, as older engines configure it. */
        SYNC_LEGACY_POLICY,
        /** The Netty async client with the SDK's defaults. */
        NETTY_SDK_DEFAULTS;

        @SuppressWarnings("deprecation") // the legacy policy is what is tested
        StreamFactory factory(S3Server server, StreamConfig config, List<AutoCloseable> resources) {
            return switch (this) {
                case SYNC_SDK_DEFAULTS -> StreamFactory.create(keep(S3Clients.sync(server), resources), config);
                case SYNC_TEN_ATTEMPTS ->
                    StreamFactory.create(
                            keep(
                                    S3Clients.syncWith(
                                            server,
                                            ClientOverrideConfiguration.builder()
                                                    .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                                            .maxAttempts(10)
                                                            .build())
                                                    .build()),
                                    resources),
                            config);
                case SYNC_LEGACY_POLICY ->
                    StreamFactory.create(
                            keep(
                                    S3Clients.syncWith(
                                            server,
                                            ClientOverrideConfiguration.builder()
                                                    .retryPolicy(RetryPolicy.builder()
                                                            .numRetries(9)
                                                            .build())
                                                    .build()),
                                    resources),
                            config);
                case NETTY_SDK_DEFAULTS -> StreamFactory.create(keep(S3Clients.nettyAsync(server), resources), config);
            };
        }

        private static <T extends AutoCloseable> T keep(T client, List<AutoCloseable> resources) {
            resources.add(client);
            return client;
        }
    }

    /**
     * Every GET Rangefetch sends makes one SDK attempt, whatever retries the client was built with: the proxy's
     * ledger shows one 503 served for each retry Rangefetch counted, and no attempt it did not make.
     */
    @ParameterizedTest
    @EnumSource(RetryingClient.class)
    void everyGetMakesOneSdkAttemptWhateverTheClientsOwnRetries(RetryingClient client) throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        List<AutoCloseable> resources = new ArrayList<>();
        try (StreamFactory factory = client.factory(proxied(), CONFIG, resources)) {
            ProxyLedger ledger = countingLedger();
            failNextGets(
                    Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503);
            try (SeekableS3InputStream stream = factory.open(location(), known())) {
                assertSameBytes(
                        data(),
                        ReadKind.POSITIONED.read(FactoryEntryPoint.of(stream), START, LENGTH),
                        START,
                        "the read after the burst");
                assertThat(stream.statistics().retries())
                        .as("Rangefetch's retries")
                        .isEqualTo(5);
            }
            assertThat(ledger.requests())
                    .extracting(ProxiedRequest::status)
                    .containsExactly(503, 503, 503, 503, 503, 206);
        } finally {
            for (AutoCloseable resource : resources) {
                resource.close();
            }
        }
        threads.assertNoNewThreads(RANGEFETCH_THREADS, THREAD_GRACE);
    }

    /**
     * The proxy's request-rate limit refuses the read's GET with 503 SlowDown until, after two refusals, the
     * limit is lifted (from the factory's client, as it sees the second 503, so nothing here depends on time):
     * the third attempt is answered.
     */
    @ParameterizedTest
    @EnumSource(ReadKind.class)
    void aRateLimitsSlowDownAnswersAreOutlasted(ReadKind kind) throws Exception {
        ShapingProxy proxy = faultingProxy();
        AtomicInteger refused = new AtomicInteger();
        ExecutionInterceptor liftAfterTwoRefusals = new ExecutionInterceptor() {
            @Override
            public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
                if (context.httpResponse().statusCode() == 503 && refused.incrementAndGet() == 2) {
                    proxy.clearRequestRateLimit();
                }
            }
        };
        long limitedBefore = proxy.rateLimitedRequests();
        try (S3Client other = S3Clients.sync(proxied())) {
            withFactory(
                    CONFIG,
                    factory -> {
                        ProxyLedger ledger = countingLedger();
                        // a burst of one, and the next token in 100 s: another client's HEAD takes the burst
                        proxy.setRequestRateLimit(0.01, 1);
                        other.headObject(request -> request.bucket(bucket()).key(key("faulty.bin")));
                        try (SeekableS3InputStream stream =
                                kind == ReadKind.TAIL ? factory.open(location()) : factory.open(location(), known())) {
                            long start = kind == ReadKind.TAIL ? SIZE - TAIL : START;
                            int length = kind == ReadKind.TAIL ? TAIL : LENGTH;
                            assertSameBytes(
                                    data(),
                                    kind.read(FactoryEntryPoint.of(stream), start, length),
                                    start,
                                    "the read after the refusals");
                            assertThat(stream.statistics().retries()).isEqualTo(2);
                        }
                        assertThat(ledger.requests())
                                .extracting(ProxiedRequest::method, ProxiedRequest::status)
                                .containsExactly(
                                        tuple("HEAD", 200), tuple("GET", 503), tuple("GET", 503), tuple("GET", 206));
                        assertThat(proxy.rateLimitedRequests() - limitedBefore).isEqualTo(2);
                    },
                    liftAfterTwoRefusals);
        } finally {
            proxy.clearRequestRateLimit();
        }
    }
}
