package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.READ_DEADLINE;
import static io.rangefetch.StreamConfig.RETRY_BASE_DELAY;
import static io.rangefetch.StreamConfig.RETRY_DEADLINE;
import static io.rangefetch.StreamConfig.RETRY_MAX_ATTEMPTS;
import static io.rangefetch.StreamConfig.RETRY_MAX_DELAY;
import static io.rangefetch.StreamConfig.THROTTLE_ENABLED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every GET and HEAD is tried again after a failure that may pass, and a body that breaks midway resumes from
 * the first byte not received, under {@code If-Match}: bytes come back right, and never of two versions.
 */
@Timeout(60)
class RetryTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final int KIB = 1024;
    private static final int SIZE = 20 * MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private StreamFactory factory(int attempts) {
        return fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(PREFETCH_MAX_SIZE, 0)
                .set(RETRY_MAX_ATTEMPTS, attempts)
                .set(RETRY_BASE_DELAY, Duration.ZERO)
                .set(RETRY_MAX_DELAY, Duration.ZERO)
                .build());
    }

    private static S3Location at(String key) {
        return new S3Location(BUCKET, key);
    }

    private OpenOptions known(String key) {
        return OpenOptions.builder().length(SIZE).etag(client.etag(BUCKET, key)).build();
    }

    /** Fails the first {@code times} GETs with {@code status}, as S3 answers 503 SlowDown. */
    private void failGets(int times, int status) {
        AtomicInteger left = new AtomicInteger(times);
        client.addFault(request -> {
            if (request.isGet() && left.getAndDecrement() > 0) {
                throw new HttpStatusException(
                        "GET s3://" + request.bucket() + "/" + request.key() + " " + request.range()
                                + " failed with HTTP " + status,
                        status,
                        null);
            }
        });
    }

    private static byte[] slice(byte[] data, long from, int length) {
        return Arrays.copyOfRange(data, (int) from, (int) from + length);
    }

    @Test
    void slowDownAnswersAreRetriedUntilTheReadSucceeds() throws Exception {
        byte[] data = fixture.put("throttled", SIZE);
        StreamFactory factory = factory(8);
        failGets(3, 503);
        byte[] bytes = new byte[KIB];
        try (SeekableS3InputStream stream = factory.open(at("throttled"), known("throttled"))) {
            stream.readFully(5L * MIB, bytes, 0, KIB);
            assertThat(stream.statistics().retries()).isEqualTo(3);
        }
        assertThat(bytes).isEqualTo(slice(data, 5L * MIB, KIB));
        fixture.awaitQuiet();
        assertThat(client.gets())
                .hasSize(4)
                .allSatisfy(get -> assertThat(get.range()).isEqualTo("bytes=5242880-5308415"));
    }

    @Test
    void aBodyResetMidwayResumesFromTheFirstByteNotReceivedUnderIfMatch() throws Exception {
        byte[] data = fixture.put("reset", SIZE);
        String etag = client.etag(BUCKET, "reset");
        StreamFactory factory = factory(8);
        client.breakBodies(Request::isGet, 300 * KIB, true, 1);
        byte[] bytes = new byte[MIB];
        try (SeekableS3InputStream stream = factory.open(at("reset"), known("reset"))) {
            stream.readFully(4L * MIB, bytes, 0, MIB);
            assertThat(stream.statistics().resumes()).isEqualTo(1);
        }
        assertThat(bytes).isEqualTo(slice(data, 4L * MIB, MIB));
        fixture.awaitQuiet();
        List<Request> gets = client.gets();
        assertThat(gets).hasSize(2);
        assertThat(gets.get(0).byteRange()).isEqualTo(ByteRange.ofLength(4L * MIB, MIB));
        assertThat(gets.get(1).byteRange()).isEqualTo(new ByteRange(4L * MIB + 300 * KIB, 5L * MIB));
        assertThat(gets.get(1).ifMatch()).isEqualTo(etag);
    }

    @Test
    void aTruncatedBodyIsNeverTakenAsCompleteAndIsResumed() throws Exception {
        byte[] data = fixture.put("truncated", SIZE);
        StreamFactory factory = factory(8);
        client.breakBodies(Request::isGet, 10 * KIB, false, 2);
        byte[] bytes = new byte[MIB];
        try (SeekableS3InputStream stream = factory.open(at("truncated"), known("truncated"))) {
            stream.readFully(MIB, bytes, 0, MIB);
            assertThat(stream.statistics().resumes()).isEqualTo(2);
        }
        assertThat(bytes).isEqualTo(slice(data, MIB, MIB));
        fixture.awaitQuiet();
        assertThat(client.gets())
                .extracting(get -> get.byteRange().start())
                .containsExactly((long) MIB, MIB + 10L * KIB, MIB + 20L * KIB);
    }

    @Test
    void theRequestThatLearnsTheVersionResumesUnderTheEtagItsFirstAnswerCarried() throws Exception {
        byte[] data = fixture.put("learning", SIZE);
        String etag = client.etag(BUCKET, "learning");
        StreamFactory factory = factory(8);
        client.breakBodies(request -> request.isGet() && request.ifMatch() == null, 20 * KIB, true, 1);
        byte[] tail = new byte[100 * KIB];
        try (SeekableS3InputStream stream = factory.open(at("learning"))) {
            assertThat(stream.readTail(tail, 0, tail.length)).isEqualTo(tail.length);
        }
        assertThat(tail).isEqualTo(slice(data, SIZE - 100 * KIB, 100 * KIB));
        fixture.awaitQuiet();
        List<Request> gets = client.gets();
        assertThat(gets.get(0).range()).startsWith("bytes=-");
        assertThat(gets.get(0).ifMatch()).isNull();
        // the rest of the suffix, as an explicit range of the version the first answer came from
        assertThat(gets.get(1).ifMatch()).isEqualTo(etag);
        assertThat(gets.get(1).byteRange().end()).isEqualTo(SIZE);
    }

    @Test
    void anObjectOverwrittenBetweenABrokenBodyAndItsResumeIsNeverSpliced() throws Exception {
        fixture.put("spliced", SIZE);
        StreamFactory factory = factory(8);
        byte[] second = TestData.bytes(SIZE, 9);
        AtomicInteger broken = new AtomicInteger();
        client.breakBodies(request -> request.isGet() && broken.getAndIncrement() == 0, 64 * KIB, true, 1);
        // the first answer breaks; before the resume the object is replaced
        client.addFault(request -> {
            if (request.isGet() && broken.get() == 1 && request.ifMatch() != null) {
                client.put(BUCKET, "spliced", second);
            }
        });
        byte[] bytes = new byte[MIB];
        try (SeekableS3InputStream stream = factory.open(at("spliced"), known("spliced"))) {
            try {
                stream.readFully(2L * MIB, bytes, 0, MIB);
                // the only read moved to the new version: every byte is the new version's
                assertThat(bytes).isEqualTo(slice(second, 2L * MIB, MIB));
            } catch (ObjectChangedException e) {
                // the stream may also refuse: never half and half
            }
        }
    }

    @Test
    void failuresThatRetryingCannotFixAreNotRetried() throws Exception {
        fixture.put("forbidden", SIZE);
        StreamFactory factory = factory(8);
        failGets(1, 403);
        try (SeekableS3InputStream stream = factory.open(at("forbidden"), known("forbidden"))) {
            assertThatThrownBy(() -> stream.readFully(0, new byte[KIB], 0, KIB))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("403");
        }
        try (SeekableS3InputStream missing = factory.open(at("missing"))) {
            assertThatThrownBy(() -> missing.readFully(0, new byte[KIB], 0, KIB))
                    .isInstanceOf(FileNotFoundException.class);
        }
        fixture.awaitQuiet();
        assertThat(client.gets()).hasSize(2);
    }

    @Test
    void retriesThatRunOutSayHowManyAttemptsWereMadeAndWhy() throws Exception {
        fixture.put("exhausted", SIZE);
        StreamFactory factory = factory(3);
        failGets(100, 500);
        try (SeekableS3InputStream stream = factory.open(at("exhausted"), known("exhausted"))) {
            assertThatThrownBy(() -> stream.readFully(0, new byte[KIB], 0, KIB))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("s3://bucket/exhausted")
                    .hasMessageContaining("3 times")
                    .hasMessageContaining("500");
        }
        fixture.awaitQuiet();
        assertThat(client.gets()).hasSize(3);
    }

    @Test
    void slowDownIsOutlastedFiveTimesLongerThanOtherFailures() throws Exception {
        fixture.put("patient", SIZE);
        StreamFactory factory = factory(3);
        failGets(100, 503);
        try (SeekableS3InputStream stream = factory.open(at("patient"), known("patient"))) {
            assertThatThrownBy(() -> stream.readFully(0, new byte[KIB], 0, KIB))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("s3://bucket/patient")
                    .hasMessageContaining("15 times")
                    .hasMessageContaining("503");
        }
        fixture.awaitQuiet();
        assertThat(client.gets()).hasSize(15);
    }

    @Test
    void aHeadIsRetriedToo() throws Exception {
        fixture.put("head", SIZE);
        StreamFactory factory = factory(8);
        AtomicInteger left = new AtomicInteger(2);
        client.addFault(request -> {
            if (request.method().equals("HEAD") && left.getAndDecrement() > 0) {
                throw new HttpStatusException("HEAD failed with HTTP 503", 503, null);
            }
        });
        try (SeekableS3InputStream stream = factory.open(at("head"))) {
            assertThat(stream.length()).isEqualTo(SIZE);
        }
        assertThat(client.count("HEAD")).isEqualTo(3);
    }

    @Test
    void aVectoredRangeWhoseBodyBreaksIsResumedAndExact() throws Exception {
        byte[] data = fixture.put("vectored", SIZE);
        StreamFactory factory = factory(8);
        client.breakBodies(Request::isGet, 200 * KIB, true, 1);
        try (SeekableS3InputStream stream = factory.open(at("vectored"), known("vectored"))) {
            FileRange range = FileRange.of(6L * MIB, MIB);
            stream.readVectored(List.of(range), ByteBuffer::allocate);
            ByteBuffer bytes = range.data().get(30, TimeUnit.SECONDS);
            byte[] copy = new byte[bytes.remaining()];
            bytes.get(copy);
            assertThat(copy).isEqualTo(slice(data, 6L * MIB, MIB));
            assertThat(stream.statistics().resumes()).isEqualTo(1);
        }
    }

    @Test
    void aReadWaitingOutABackoffLeavesItsFetchSlotToOtherReads() throws Exception {
        fixture.put("throttled", SIZE);
        waitsOutItsBackoffOffTheSlot(request -> request.isGet() && request.key().equals("throttled"), factory -> () -> {
            factory.open(at("throttled"), known("throttled")).readFully(0, new byte[KIB], 0, KIB);
            return null;
        });
    }

    @Test
    void aFirstReadLearningTheObjectWaitsOutItsBackoffOffItsFetchSlot() throws Exception {
        fixture.put("throttled", SIZE);
        // nothing known: the first read's GET learns the length and the ETag
        waitsOutItsBackoffOffTheSlot(request -> request.isGet() && request.key().equals("throttled"), factory -> () -> {
            factory.open(at("throttled")).readFully(0, new byte[KIB], 0, KIB);
            return null;
        });
    }

    @Test
    void aListingPageWaitsOutItsBackoffOffItsFetchSlot() throws Exception {
        fixture.put("listed/a", KIB);
        waitsOutItsBackoffOffTheSlot(request -> request.method().equals("LIST"), factory -> () -> {
            try (ObjectListing listing = factory.list(List.of(at("listed/")))) {
                return listing.toList();
            }
        });
    }

    /**
     * One fetch slot, and a first retry that may wait up to an hour: {@code throttledWork} (run on another thread),
     * whose requests {@code throttled} accepts are answered 503, must wait out its backoff off the slot while a read
     * of another object runs on it; closing the factory ends that wait with an {@link IOException}, not a hang.
     */
    private void waitsOutItsBackoffOffTheSlot(
            Predicate<Request> throttled, Function<StreamFactory, Callable<Object>> throttledWork) throws Exception {
        byte[] other = fixture.put("other", SIZE);
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(PREFETCH_MAX_SIZE, 0)
                .set(FETCH_MAX_CONCURRENCY, 1)
                .set(THROTTLE_ENABLED, false)
                .set(RETRY_MAX_ATTEMPTS, 8)
                .set(RETRY_BASE_DELAY, Duration.ofHours(1))
                .set(RETRY_MAX_DELAY, Duration.ofHours(1))
                .set(RETRY_DEADLINE, Duration.ofHours(2))
                .set(READ_DEADLINE, Duration.ZERO)
                .build());
        client.addFault(request -> {
            if (throttled.test(request)) {
                throw new HttpStatusException(
                        request.method() + " s3://" + request.bucket() + "/" + request.key() + " failed with HTTP 503",
                        503,
                        null);
            }
        });
        ExecutorService workers = Executors.newSingleThreadExecutor();
        try {
            Future<Object> waiting = workers.submit(throttledWork.apply(factory));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (client.requests().stream().noneMatch(throttled)) {
                assertThat(System.nanoTime())
                        .as("the throttled request was sent")
                        .isLessThan(until);
                Thread.onSpinWait();
            }
            byte[] bytes = new byte[KIB];
            try (SeekableS3InputStream stream = factory.open(at("other"), known("other"))) {
                stream.readFully(3L * MIB, bytes, 0, KIB);
            }
            assertThat(bytes).isEqualTo(slice(other, 3L * MIB, KIB));
            assertThat(waiting)
                    .as("the throttled work still waits out its backoff")
                    .isNotDone();

            factory.close(); // ends the wait: the work fails, it does not hang
            assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IOException.class);
        } finally {
            workers.shutdownNow();
            assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
