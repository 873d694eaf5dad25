package io.rangefetch.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.FileRange;
import io.rangefetch.OpenOptions;
import io.rangefetch.S3Location;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.it.proxy.Fault;
import io.rangefetch.it.proxy.NetworkModel;
import io.rangefetch.it.proxy.ProxiedRequest;
import io.rangefetch.it.proxy.ProxyLedger;
import io.rangefetch.it.server.S3Clients;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Retries and resume against a real S3 server, through the proxy that injects S3's faults into the next GETs:
 * 503 SlowDown, a connection reset halfway through a body, a body cut short of its Content-Length. Every read
 * returns the object's bytes; a 503 is sent again as it was, a broken body is resumed from exactly the first
 * byte not received (the proxy's ledger shows where the first answer stopped and where the second starts). The
 * factory's S3 client has the SDK's own retries off, so every retry seen here is Rangefetch's. Subclassed once per
 * backend.
 */
abstract class RetryFaultSuite extends ProxiedS3ServerTestBase {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final int SIZE = 20 * MIB;
    /** Prefetch off and no format policy (.bin): each read below sends exactly the GET the test expects. */
    private static final StreamConfig CONFIG = StreamConfig.builder().cacheMaxMemory(128L * MIB).prefetchMaxSize(0)
            .retryBaseDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(10)).build();

    private byte[] data;
    private String etag;

    RetryFaultSuite() {
        super(NetworkModel.unshaped());
    }

    @BeforeAll
    void upload() {
        data = new byte[SIZE];
        new SplittableRandom(12).nextBytes(data);
        try (S3Client s3 = S3Clients.sync(server())) {
            etag = put(s3, "faulty.bin", data);
        }
    }

    private S3Location location() {
        return new S3Location(bucket(), key("faulty.bin"));
    }

    private OpenOptions known() {
        return OpenOptions.builder().length(SIZE).etag(etag).build();
    }

    /** A fault the proxy answers itself (503, 500): the request is sent again as it was, nothing to resume. */
    private static boolean answeredWithoutBody(Fault fault) {
        return fault == Fault.SLOW_DOWN_503 || fault == Fault.SERVER_ERROR_500;
    }

    /** The two GETs a faulted read sent: the failed one, then one that resumed (or repeated) it. */
    private static void assertResumedOrRepeated(ProxyLedger ledger, Fault fault, long start, long end) {
        List<ProxiedRequest> gets = ledger.requests().stream().filter(request -> request.method().equals("GET"))
                .toList();
        assertThat(gets).as("GETs %s", gets).hasSize(2);
        ProxiedRequest failed = gets.get(0);
        ProxiedRequest second = gets.get(1);
        if (answeredWithoutBody(fault)) {
            assertThat(failed.status()).isEqualTo(fault == Fault.SLOW_DOWN_503 ? 503 : 500);
            assertThat(second.rangeHeader()).isEqualTo(failed.rangeHeader());
        } else {
            assertResumePoint(failed, second, fault, start, end);
        }
        assertThat(second.status()).isEqualTo(206);
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

    @ParameterizedTest
    @EnumSource(value = Fault.class, names = {"SLOW_DOWN_503", "SERVER_ERROR_500", "RESET_MID_BODY", "TRUNCATED_BODY"})
    void aPositionedReadGetsItsBytesThroughEveryFault(Fault fault) throws Exception {
        withFactory(CONFIG, factory -> {
            ProxyLedger ledger = countingLedger();
            failNextGets(fault);
            byte[] bytes = new byte[MIB];
            try (SeekableS3InputStream stream = factory.open(location(), known())) {
                stream.readFully(5L * MIB, bytes, 0, MIB);
                assertThat(stream.statistics().retries()).isEqualTo(1);
                assertThat(stream.statistics().resumes()).isEqualTo(answeredWithoutBody(fault) ? 0 : 1);
            }
            assertSameBytes(data, bytes, 5L * MIB, "the positioned read");
            assertResumedOrRepeated(ledger, fault, 5L * MIB, 6L * MIB);
        });
    }

    @ParameterizedTest
    @EnumSource(value = Fault.class, names = {"SLOW_DOWN_503", "SERVER_ERROR_500", "RESET_MID_BODY", "TRUNCATED_BODY"})
    void aVectoredRangeGetsItsBytesThroughEveryFault(Fault fault) throws Exception {
        withFactory(CONFIG, factory -> {
            ProxyLedger ledger = countingLedger();
            failNextGets(fault);
            try (SeekableS3InputStream stream = factory.open(location(), known())) {
                FileRange range = FileRange.of(9L * MIB, MIB);
                stream.readVectored(List.of(range), ByteBuffer::allocate);
                ByteBuffer buffer = range.data().get(60, TimeUnit.SECONDS);
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                assertSameBytes(data, bytes, 9L * MIB, "the vectored range");
            }
            assertResumedOrRepeated(ledger, fault, 9L * MIB, 10L * MIB);
        });
    }

    @ParameterizedTest
    @EnumSource(value = Fault.class, names = {"SLOW_DOWN_503", "SERVER_ERROR_500", "RESET_MID_BODY", "TRUNCATED_BODY"})
    void theRequestThatLearnsTheVersionGetsThroughEveryFault(Fault fault) throws Exception {
        withFactory(CONFIG, factory -> {
            ProxyLedger ledger = countingLedger();
            failNextGets(fault);
            byte[] tail = new byte[200 * KIB];
            try (SeekableS3InputStream stream = factory.open(location())) {
                assertThat(stream.readTail(tail, 0, tail.length)).isEqualTo(tail.length);
            }
            assertSameBytes(data, tail, SIZE - tail.length, "the tail");
            List<ProxiedRequest> gets = ledger.requests();
            assertThat(gets).as("requests %s", gets).hasSize(2);
            if (answeredWithoutBody(fault)) {
                assertThat(gets.get(1).rangeHeader()).isEqualTo("bytes=-" + tail.length);
            } else {
                // the rest of the suffix, as an explicit range (under If-Match on the first answer's ETag)
                assertResumePoint(gets.get(0), gets.get(1), fault, SIZE - tail.length, SIZE);
            }
        });
    }

    @Test
    void aBurstOfSlowDownAnswersIsOutlasted() throws Exception {
        withFactory(CONFIG, factory -> {
            ProxyLedger ledger = countingLedger();
            failNextGets(Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503, Fault.SLOW_DOWN_503,
                    Fault.SLOW_DOWN_503);
            byte[] bytes = new byte[100 * KIB];
            try (SeekableS3InputStream stream = factory.open(location(), known())) {
                stream.readFully(MIB, bytes, 0, bytes.length);
            }
            assertSameBytes(data, bytes, MIB, "the read after the burst");
            assertThat(ledger.requests()).extracting(ProxiedRequest::status)
                    .containsExactly(503, 503, 503, 503, 503, 206);
        });
    }
}
