package io.rangefetch.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Retries and resume against a real S3 server, through the proxy that injects S3's faults into the next GETs,
 * for every {@link ReadKind} and through an {@link EntryPoint} (Rangefetch directly, and in the adapter modules
 * {@code RangefetchS3FileIO} on Iceberg's client and S3A with the factory on S3A's client, each with its own
 * retry settings): 503 SlowDown (once, and in a burst), 500, a connection reset halfway through a body, a body cut
 * short of its Content-Length, an answer slow to begin, and the object overwritten between two reads. Every read
 * returns the object's bytes; a 500 or 503 is sent again as it was, once per Rangefetch retry and never by the
 * client beneath it; a broken body is resumed from exactly the first byte not received (the proxy's ledger shows
 * where the first answer stopped and where the second starts); a slow answer is waited for (or, past
 * {@code retry.first-byte-timeout}, given up and sent again); and an overwrite never mixes two versions.
 * Subclassed once per entry point and backend.
 *
 * <p>Positioned, streaming and vectored reads take 1 MiB in the middle of a stream that was given the length and
 * (where the entry point can pass one) the ETag; a {@link ReadKind#TAIL tail} read is the first request of a stream
 * given nothing, the one that learns the version (after S3A's HEAD, where the entry point is S3A).
 */
public abstract class RetryFaultSuite extends EntryPointTestBase {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    /** The faulty object's size, and a tail read's length. */
    protected static final int SIZE = 20 * MIB;

    protected static final int TAIL = 200 * KIB;
    /** Short of retry.first-byte-timeout (10 s by default), so a held answer is waited for. */
    private static final Duration FAULT_FIRST_BYTE_DELAY = Duration.ofMillis(300);

    private byte[] data;
    private String etag;

    protected RetryFaultSuite() {
        super(NetworkModel.unshaped());
    }

    /**
     * Prefetch and hedging off, and no format policy (.bin): each read below sends exactly the GETs the test
     * expects (hedges are the core's unit tests' business); short retry delays.
     */
    protected static Map<String, String> settings() {
        Map<String, String> settings = new HashMap<>();
        settings.put("cache.max-memory", "128MiB");
        settings.put("prefetch.max-size", "0");
        settings.put("hedge.enabled", "false");
        settings.put("retry.base-delay", "1ms");
        settings.put("retry.max-delay", "10ms");
        return settings;
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
        withEntryPoint(settings(), entryPoint -> {
            ProxyLedger ledger = countingLedger();
            long appliedBefore = faultingProxy().injectedFaults().get(fault);
            failNextGets(fault);
            try (EntryStream stream = open(entryPoint, kind)) {
                assertSameBytes(data, kind.read(stream, start(kind), length(kind)), start(kind), kind + " read");
            }
            StreamStatistics statistics = entryPoint.statistics();
            assertThat(faultingProxy().injectedFaults().get(fault) - appliedBefore)
                    .as("%s applied", fault)
                    .isEqualTo(1);
            assertHeads(ledger, entryPoint, kind);
            switch (fault) {
                case SLOW_DOWN_503 -> assertRepeated(ledger, statistics, 503);
                case SERVER_ERROR_500 -> assertRepeated(ledger, statistics, 500);
                case RESET_MID_BODY, TRUNCATED_BODY -> assertResumed(ledger, statistics, fault, kind);
                case FIRST_BYTE_DELAY -> {
                    // far below retry.first-byte-timeout: the one GET is waited for, not given up
                    assertThat(gets(ledger)).extracting(ProxiedRequest::status).containsExactly(206);
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
        Map<String, String> settings = settings();
        settings.put("retry.first-byte-timeout", "700ms");
        withEntryPoint(settings, entryPoint -> {
            ProxyLedger ledger = countingLedger();
            faultingProxy().setFaultFirstByteDelay(Duration.ofSeconds(2));
            failNextGets(Fault.FIRST_BYTE_DELAY);
            try (EntryStream stream = open(entryPoint, kind)) {
                assertSameBytes(data, kind.read(stream, start(kind), length(kind)), start(kind), kind + " read");
            }
            assertThat(entryPoint.statistics().retries()).isEqualTo(1);
            assertThat(entryPoint.statistics().resumes()).isZero();
            List<ProxiedRequest> requests = gets(ledger);
            assertThat(requests).as("requests %s", requests).hasSize(2);
            // the held answer may still be written to the socket when its hold ends: what the proxy sent of it says
            // nothing of what the client read, so only the order and the ranges are checked
            assertSameRange(requests.get(0), requests.get(1));
            assertThat(requests.get(1).status()).isEqualTo(206);
        });
    }

    /**
     * Five 503s in a row, well within {@code retry.max-attempts} (8): each is one attempt of the client beneath,
     * whatever retries it was built with, so the ledger shows five 503s for Rangefetch's five retries and no more.
     */
    @ParameterizedTest
    @EnumSource(ReadKind.class)
    void aBurstOfSlowDownAnswersIsOutlasted(ReadKind kind) throws Exception {
        withEntryPoint(settings(), entryPoint -> {
            ProxyLedger ledger = countingLedger();
            failNextGets(
                    Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503);
            try (EntryStream stream = open(entryPoint, kind)) {
                assertSameBytes(
                        data, kind.read(stream, start(kind), length(kind)), start(kind), "the read after the burst");
            }
            assertThat(entryPoint.statistics().retries())
                    .as("Rangefetch's retries")
                    .isEqualTo(5);
            List<ProxiedRequest> requests = gets(ledger);
            assertThat(requests).extracting(ProxiedRequest::status).containsExactly(503, 503, 503, 503, 503, 206);
            assertThat(requests)
                    .extracting(ProxiedRequest::rangeHeader)
                    .containsOnly(requests.get(0).rangeHeader());
        });
    }

    /**
     * The object is overwritten between two reads of one stream. A stream that returned bytes of the first
     * version fails every read that would need the second with the entry point's version change
     * ({@code ObjectChangedException}, or S3A's {@code RemoteFileChangedException}). A fresh stream that has
     * returned nothing yet (the tail read, on a factory that learned the first version) moves to the new version
     * and returns only its bytes, unless its entry point fixed the version at open with a HEAD (S3A): then it
     * fails the same way.
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
            withEntryPoint(settings(), entryPoint -> {
                // the length only: the stream learns the ETag from its first answer, so it may move if allowed
                try (EntryStream stream = entryPoint.open(location, size, null)) {
                    assertSameBytes(
                            first, ReadKind.POSITIONED.read(stream, MIB, 64 * KIB), MIB, "before the overwrite");
                    ProxyLedger ledger = countingLedger();
                    if (kind == ReadKind.TAIL && !entryPoint.headsWhenOpenedKnowingNothing()) {
                        try (EntryStream fresh = entryPoint.open(location, -1, null)) {
                            put(s3, name, second);
                            assertSameBytes(
                                    second,
                                    kind.read(fresh, size - TAIL, TAIL),
                                    size - TAIL,
                                    "a fresh stream's read after the overwrite");
                        }
                        assertThat(ledger.requests())
                                .extracting(ProxiedRequest::method, ProxiedRequest::status)
                                .containsExactly(tuple("GET", 412), tuple("GET", 206));
                    } else if (kind == ReadKind.TAIL) {
                        try (EntryStream fresh = entryPoint.open(location, -1, null)) {
                            put(s3, name, second);
                            assertVersionChange(entryPoint, () -> kind.read(fresh, size - TAIL, TAIL), location);
                        }
                        assertThat(gets(ledger))
                                .extracting(ProxiedRequest::status)
                                .containsExactly(412);
                    } else {
                        put(s3, name, second);
                        assertVersionChange(entryPoint, () -> kind.read(stream, 6L * MIB, 64 * KIB), location);
                        // the GET named the first version's ETag and S3 said it is gone; nothing of the second
                        // version was fetched (a HEAD may learn its ETag for the exception's message)
                        assertThat(gets(ledger))
                                .extracting(ProxiedRequest::status)
                                .containsExactly(412);
                    }
                }
            });
        }
    }

    private static void assertVersionChange(EntryPoint entryPoint, ThrowingRead read, S3Location location) {
        assertThatThrownBy(read::run)
                .isInstanceOf(IOException.class)
                .matches(
                        failure -> entryPoint.isVersionChange((IOException) failure),
                        "a version change of " + entryPoint)
                .hasMessageContaining(location.key());
    }

    @FunctionalInterface
    private interface ThrowingRead {
        void run() throws IOException;
    }

    /** The faulty object: {@link #SIZE} random bytes ({@link #data()}) of ETag {@link #etag()}. */
    protected final S3Location location() {
        return new S3Location(bucket(), key("faulty.bin"));
    }

    protected final byte[] data() {
        return data;
    }

    protected final String etag() {
        return etag;
    }

    /** A tail read opens knowing nothing, so its GET is the stream's first; every other kind knows the version. */
    private EntryStream open(EntryPoint entryPoint, ReadKind kind) throws IOException {
        return kind == ReadKind.TAIL ? entryPoint.open(location(), -1, null) : entryPoint.open(location(), SIZE, etag);
    }

    /** No HEAD but the one S3A sends to open a stream that knows nothing. */
    private static void assertHeads(ProxyLedger ledger, EntryPoint entryPoint, ReadKind kind) {
        int expected = kind == ReadKind.TAIL && entryPoint.headsWhenOpenedKnowingNothing() ? 1 : 0;
        assertThat(ledger.requests())
                .as("HEADs through %s", entryPoint)
                .filteredOn(request -> request.method().equals("HEAD"))
                .hasSize(expected);
    }

    /**
     * The second request asks for the first's range. (Compared as strings outside AssertJ: the S3A module runs
     * this suite on the AssertJ its Hadoop contract suites need, older than the one it is compiled with.)
     */
    private static void assertSameRange(ProxiedRequest first, ProxiedRequest second) {
        assertThat(second.rangeHeader().equals(first.rangeHeader()))
                .as("range %s sent again, sent %s", first.rangeHeader(), second.rangeHeader())
                .isTrue();
    }

    private static List<ProxiedRequest> gets(ProxyLedger ledger) {
        return ledger.requests().stream()
                .filter(request -> request.method().equals("GET"))
                .toList();
    }

    private static long start(ReadKind kind) {
        return kind == ReadKind.TAIL ? SIZE - TAIL : 5L * MIB;
    }

    private static int length(ReadKind kind) {
        return kind == ReadKind.TAIL ? TAIL : MIB;
    }

    /** An answer the proxy gave itself ({@code status}), then the same request again, answered. */
    private static void assertRepeated(ProxyLedger ledger, StreamStatistics statistics, int status) {
        List<ProxiedRequest> requests = gets(ledger);
        assertThat(requests).as("requests %s", requests).hasSize(2);
        assertThat(requests.get(0).status()).isEqualTo(status);
        assertSameRange(requests.get(0), requests.get(1));
        assertThat(requests.get(1).status()).isEqualTo(206);
        assertThat(statistics.retries()).isEqualTo(1);
        assertThat(statistics.resumes()).isZero();
    }

    /** A body broken midway, then a GET for the rest of it (a tail read's rest as an explicit range). */
    private static void assertResumed(ProxyLedger ledger, StreamStatistics statistics, Fault fault, ReadKind kind) {
        List<ProxiedRequest> requests = gets(ledger);
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
    private static void assertResumePoint(
            ProxiedRequest failed, ProxiedRequest second, Fault fault, long start, long end) {
        assertThat(failed.bodyBytes()).isPositive().isLessThan(end - start);
        assertThat(second.rangeHeader()).endsWith("-" + (end - 1));
        long resumedAt =
                Long.parseLong(second.rangeHeader().substring("bytes=".length()).split("-")[0]);
        if (fault == Fault.TRUNCATED_BODY) {
            assertThat(resumedAt).isEqualTo(start + failed.bodyBytes());
        } else {
            assertThat(resumedAt).isBetween(start, start + failed.bodyBytes());
        }
    }
}
