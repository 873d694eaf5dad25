package io.rangefetch.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.OpenOptions;
import io.rangefetch.S3Location;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.StreamStatistics;
import io.rangefetch.it.proxy.Fault;
import io.rangefetch.it.proxy.NetworkModel;
import io.rangefetch.it.proxy.ProxiedRequest;
import io.rangefetch.it.proxy.ProxyLedger;
import io.rangefetch.it.proxy.ShapingProxy;
import io.rangefetch.it.server.S3Clients;
import io.rangefetch.it.server.S3Server;
import io.rangefetch.it.server.ThreadLeakChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Retries and resume against a real S3 server, through the proxy that injects S3's faults into the next GETs,
 * for every {@link ReadKind}: 503 SlowDown (once, in a burst, and from a request-rate limit), 500, a connection
 * reset halfway through a body, a body cut short of its Content-Length, an answer slow to begin, and the object
 * overwritten between two reads. Every read returns the object's bytes; a 500 or 503 is sent again as it was, a
 * broken body is resumed from exactly the first byte not received (the proxy's ledger shows where the first
 * answer stopped and where the second starts), a slow answer is waited for (or, past
 * {@code retry.first-byte-timeout}, given up and sent again), and an overwrite never mixes two versions. The factory's S3 client has the SDK's own retries off, so every retry seen
 * here is Rangefetch's. Subclassed once per backend.
 *
 * <p>Positioned, streaming and vectored reads take 1 MiB in the middle of a stream that was given the length and
 * ETag; a {@link ReadKind#TAIL tail} read is the first request of a stream given nothing, the one that learns the
 * version.
 */
abstract class RetryFaultSuite extends ProxiedS3ServerTestBase {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final int SIZE = 20 * MIB;
    private static final int TAIL = 200 * KIB;
    /**
     * Prefetch and hedging off, and no format policy (.bin): each read below sends exactly the GETs the test
     * expects (hedges are the core's unit tests' business).
     */
    private static final StreamConfig CONFIG = config().build();
    /** Short of retry.first-byte-timeout (10 s by default), so a held answer is waited for. */
    private static final Duration FAULT_FIRST_BYTE_DELAY = Duration.ofMillis(300);


    private byte[] data;
    private String etag;

    RetryFaultSuite() {
        super(NetworkModel.unshaped());
    }

    @BeforeAll
    void upload() {
        data = randomBytes(SIZE, 12);
        try (S3Client s3 = S3Clients.sync(server())) {
            etag = put(s3, "faulty.bin", data);
        }
    }

    @BeforeEach
    void holdHeadsBriefly() {
        faultingProxy().setFaultFirstByteDelay(FAULT_FIRST_BYTE_DELAY);
    }

    static Stream<Arguments> everyFaultAndReadKind() {
        return Arrays.stream(Fault.values())
                .flatMap(fault -> Arrays.stream(ReadKind.values()).map(kind -> Arguments.of(fault, kind)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("everyFaultAndReadKind")
    void everyReadKindGetsItsBytesThroughEveryFault(Fault fault, ReadKind kind) throws Exception {
        withFactory(CONFIG, factory -> {
            ProxyLedger ledger = countingLedger();
            long appliedBefore = faultingProxy().injectedFaults().get(fault);
            failNextGets(fault);
            StreamStatistics statistics;
            try (SeekableS3InputStream stream = open(factory, kind)) {
                assertSameBytes(data, kind.read(stream, start(kind), length(kind)), start(kind), kind + " read");
                statistics = stream.statistics();
            }
            assertThat(faultingProxy().injectedFaults().get(fault) - appliedBefore).as("%s applied", fault)
                    .isEqualTo(1);
            switch (fault) {
                case SLOW_DOWN_503 -> assertRepeated(ledger, statistics, 503);
                case SERVER_ERROR_500 -> assertRepeated(ledger, statistics, 500);
                case RESET_MID_BODY, TRUNCATED_BODY -> assertResumed(ledger, statistics, fault, kind);
                case FIRST_BYTE_DELAY -> {
                    // far below retry.first-byte-timeout: the one GET is waited for, not given up
                    assertThat(ledger.requests()).extracting(ProxiedRequest::status).containsExactly(206);
                    assertThat(statistics.retries()).isZero();
                }
            }
        });
    }

    /**
     * An answer held longer than {@code retry.first-byte-timeout} is given up, and the GET sent again: the second
     * one, not held, brings the bytes.
     */
    @ParameterizedTest
    @EnumSource(ReadKind.class)
    void anAnswerSlowerThanTheFirstByteTimeoutIsGivenUpAndSentAgain(ReadKind kind) throws Exception {
        // the held answer comes after 2 s, the timeout is 700 ms: a margin that a busy machine's real first bytes
        // (the retry's) stay well inside, so the retry count does not depend on the machine
        withFactory(config().retryFirstByteTimeout(Duration.ofMillis(700)).build(), factory -> {
            ProxyLedger ledger = countingLedger();
            faultingProxy().setFaultFirstByteDelay(Duration.ofSeconds(2));
            failNextGets(Fault.FIRST_BYTE_DELAY);
            try (SeekableS3InputStream stream = open(factory, kind)) {
                assertSameBytes(data, kind.read(stream, start(kind), length(kind)), start(kind), kind + " read");
                assertThat(stream.statistics().retries()).isEqualTo(1);
                assertThat(stream.statistics().resumes()).isZero();
            }
            List<ProxiedRequest> requests = ledger.requests();
            assertThat(requests).as("requests %s", requests).hasSize(2);
            // the held answer may still be written to the socket when its hold ends: what the proxy sent of it says
            // nothing of what the client read, so only the order and the ranges are checked
            assertThat(requests.get(1).rangeHeader()).isEqualTo(requests.get(0).rangeHeader());
            assertThat(requests.get(1).status()).isEqualTo(206);
        });
    }

    @ParameterizedTest
    @EnumSource(ReadKind.class)
    void aBurstOfSlowDownAnswersIsOutlasted(ReadKind kind) throws Exception {
        withFactory(CONFIG, factory -> {
            ProxyLedger ledger = countingLedger();
            // five in a row, well within retry.max-attempts (8)
            failNextGets(Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503);
            try (SeekableS3InputStream stream = open(factory, kind)) {
                assertSameBytes(data, kind.read(stream, start(kind), length(kind)), start(kind), "the read after the burst");
                assertThat(stream.statistics().retries()).isEqualTo(5);
            }
            List<ProxiedRequest> requests = ledger.requests();
            assertThat(requests).extracting(ProxiedRequest::status).containsExactly(503, 503, 503, 503, 503, 206);
            assertThat(requests).extracting(ProxiedRequest::rangeHeader).containsOnly(requests.get(0).rangeHeader());
        });
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
                case SYNC_TEN_ATTEMPTS -> StreamFactory.create(keep(S3Clients.syncWith(server,
                        ClientOverrideConfiguration.builder().retryStrategy(AwsRetryStrategy.standardRetryStrategy()
                                .toBuilder().maxAttempts(10).build()).build()), resources), config);
                case SYNC_LEGACY_POLICY -> StreamFactory.create(keep(S3Clients.syncWith(server,
                        ClientOverrideConfiguration.builder().retryPolicy(RetryPolicy.builder().numRetries(9).build())
                                .build()), resources), config);
                case NETTY_SDK_DEFAULTS -> StreamFactory.create(keep(S3Clients.nettyAsync(server), resources),
                        config);
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
            failNextGets(Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503);
            try (SeekableS3InputStream stream = open(factory, ReadKind.POSITIONED)) {
                assertSameBytes(data, ReadKind.POSITIONED.read(stream, start(ReadKind.POSITIONED),
                        length(ReadKind.POSITIONED)), start(ReadKind.POSITIONED), "the read after the burst");
                assertThat(stream.statistics().retries()).as("Rangefetch's retries").isEqualTo(5);
            }
            assertThat(ledger.requests()).extracting(ProxiedRequest::status)
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
            withFactory(CONFIG, factory -> {
                ProxyLedger ledger = countingLedger();
                // a burst of one, and the next token in 100 s: another client's HEAD takes the burst
                proxy.setRequestRateLimit(0.01, 1);
                other.headObject(request -> request.bucket(bucket()).key(key("faulty.bin")));
                try (SeekableS3InputStream stream = open(factory, kind)) {
                    assertSameBytes(data, kind.read(stream, start(kind), length(kind)), start(kind),
                            "the read after the refusals");
                    assertThat(stream.statistics().retries()).isEqualTo(2);
                }
                assertThat(ledger.requests()).extracting(ProxiedRequest::method, ProxiedRequest::status)
                        .containsExactly(tuple("HEAD", 200), tuple("GET", 503), tuple("GET", 503), tuple("GET", 206));
                assertThat(proxy.rateLimitedRequests() - limitedBefore).isEqualTo(2);
            }, liftAfterTwoRefusals);
        } finally {
            proxy.clearRequestRateLimit();
        }
    }

    /**
     * The object is overwritten between two reads of one stream. A stream that returned bytes of the first
     * version fails every read that would need the second with {@link ObjectChangedException}; a fresh stream
     * that has returned nothing yet (the tail read, on a factory that learned the first version) moves to the new
     * version and returns only its bytes.
     */
    @ParameterizedTest
    @EnumSource(ReadKind.class)
    void anOverwriteBetweenTwoReadsNeverMixesVersions(ReadKind kind) throws Exception {
        String name = "overwritten-" + kind + ".bin";
        S3Location location = new S3Location(bucket(), key(name));
        int size = 10 * MIB;
        byte[] first = randomBytes(size, 20);
        byte[] second = randomBytes(size, 21);
        try (S3Client s3 = S3Clients.sync(server())) {
            put(s3, name, first);
            withFactory(CONFIG, factory -> {
                // the length only: the stream learns the ETag from its first answer, so it may move if allowed
                OpenOptions lengthOnly = OpenOptions.builder().length(size).build();
                try (SeekableS3InputStream stream = factory.open(location, lengthOnly)) {
                    assertSameBytes(first, ReadKind.POSITIONED.read(stream, MIB, 64 * KIB), MIB, "before the overwrite");
                    ProxyLedger ledger = countingLedger();
                    if (kind == ReadKind.TAIL) {
                        try (SeekableS3InputStream fresh = factory.open(location)) {
                            put(s3, name, second);
                            assertSameBytes(second, kind.read(fresh, size - TAIL, TAIL), size - TAIL,
                                    "a fresh stream's read after the overwrite");
                        }
                        assertThat(ledger.requests()).extracting(ProxiedRequest::method, ProxiedRequest::status)
                                .containsExactly(tuple("GET", 412), tuple("GET", 206));
                    } else {
                        put(s3, name, second);
                        assertThatThrownBy(() -> kind.read(stream, 6L * MIB, 64 * KIB))
                                .isInstanceOf(ObjectChangedException.class)
                                .hasMessageContaining(location.key());
                        // the GET named the first version's ETag and S3 said it is gone; nothing of the second
                        // version was fetched (a HEAD may learn its ETag for the exception's message)
                        List<ProxiedRequest> requests = ledger.requests();
                        assertThat(requests).as("requests %s", requests)
                                .filteredOn(request -> request.method().equals("GET"))
                                .extracting(ProxiedRequest::status).containsExactly(412);
                    }
                }
            });
        }
    }

    private static StreamConfig.Builder config() {
        return StreamConfig.builder().cacheMaxMemory(128L * MIB).prefetchMaxSize(0).hedgeEnabled(false)
                .retryBaseDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(10));
    }

    private S3Location location() {
        return new S3Location(bucket(), key("faulty.bin"));
    }

    /** A tail read opens knowing nothing, so its GET is the stream's first; every other kind knows the version. */
    private SeekableS3InputStream open(StreamFactory factory, ReadKind kind) {
        return kind == ReadKind.TAIL ? factory.open(location())
                : factory.open(location(), OpenOptions.builder().length(SIZE).etag(etag).build());
    }

    private static long start(ReadKind kind) {
        return kind == ReadKind.TAIL ? SIZE - TAIL : 5L * MIB;
    }

    private static int length(ReadKind kind) {
        return kind == ReadKind.TAIL ? TAIL : MIB;
    }

    /** An answer the proxy gave itself ({@code status}), then the same request again, answered. */
    private static void assertRepeated(ProxyLedger ledger, StreamStatistics statistics, int status) {
        List<ProxiedRequest> requests = ledger.requests();
        assertThat(requests).as("requests %s", requests).hasSize(2);
        assertThat(requests.get(0).status()).isEqualTo(status);
        assertThat(requests.get(1).rangeHeader()).isEqualTo(requests.get(0).rangeHeader());
        assertThat(requests.get(1).status()).isEqualTo(206);
        assertThat(statistics.retries()).isEqualTo(1);
        assertThat(statistics.resumes()).isZero();
    }

    /** A body broken midway, then a GET for the rest of it (a tail read's rest as an explicit range). */
    private static void assertResumed(ProxyLedger ledger, StreamStatistics statistics, Fault fault, ReadKind kind) {
        List<ProxiedRequest> requests = ledger.requests();
        assertThat(requests).as("requests %s", requests).hasSize(2);
        assertResumePoint(requests.get(0), requests.get(1), fault, start(kind), start(kind) + length(kind));
        assertThat(requests.get(1).status()).isEqualTo(206);
        assertThat(statistics.retries()).isEqualTo(1);
        assertThat(statistics.resumes()).isEqualTo(1);
    }

    /**
     * The second GET asks for the rest of what the broken first answer did not deliver, to the same end: exactly
     * from where it stopped when the connection closed cleanly; when it was reset, from somewhere up to where the
     * proxy cut (a reset drops what was still in flight to the client).
     */
    private static void assertResumePoint(ProxiedRequest failed, ProxiedRequest second, Fault fault, long start,
            long end) {
        assertThat(failed.bodyBytes()).isPositive().isLessThan(end - start);
        assertThat(second.rangeHeader()).endsWith("-" + (end - 1));
        long resumedAt = Long.parseLong(second.rangeHeader().substring("bytes=".length()).split("-")[0]);
        if (fault == Fault.TRUNCATED_BODY) {
            assertThat(resumedAt).isEqualTo(start + failed.bodyBytes());
        } else {
            assertThat(resumedAt).isBetween(start, start + failed.bodyBytes());
        }
    }
}
