package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.internal.format.OrcFormatPolicy;
import io.rangefetch.internal.format.TextFormatPolicy;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.LogCapture;
import io.rangefetch.testing.RecordingPolicy;
import io.rangefetch.testing.StreamFixture;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An empty object is simply empty, whatever its format and whether its length is known: reads end at once, no
 * format policy waits on anything, and nothing hangs with a single fetch slot.
 */
@Timeout(value = 60, threadMode = ThreadMode.SEPARATE_THREAD)
class EmptyObjectTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    /** ORC and text from the class path, plus a policy that fetches the tail at open (as Parquet's does). */
    private static final List<String> KEYS = List.of("empty.orc", "empty.csv", "empty.bin", "empty.rec");

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private StreamFactory factory(int fetchSlots) {
        StreamConfig config = StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 64L * MIB)
                .set(FETCH_MAX_CONCURRENCY, fetchSlots)
                .set(FORMAT_EXTENSIONS, Map.of("orc", List.of("orc"), "text", List.of("csv"), "rec", List.of("rec")))
                .build();
        return fixture.factory(
                config, List.of(new OrcFormatPolicy(), new TextFormatPolicy(), RecordingPolicy.fetching("rec", 4096)));
    }

    private static void assertEmpty(SeekableS3InputStream stream) throws Exception {
        assertThat(stream.read()).isEqualTo(-1);
        assertThat(stream.read(new byte[10], 0, 10)).isEqualTo(-1);
        assertThat(stream.readTail(new byte[8], 0, 8)).isZero();
        assertThat(stream.length()).isZero();
        stream.readFully(0, new byte[0], 0, 0);
        FileRange nothing = FileRange.of(0, 0);
        stream.readVectored(List.of(nothing), ByteBuffer::allocate);
        assertThat(nothing.data().get(10, TimeUnit.SECONDS).remaining()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"empty.orc", "empty.csv", "empty.bin", "empty.rec"})
    void anEmptyObjectOfUnknownLengthReadsAsEmptyWithASingleFetchSlot(String key) throws Exception {
        client.put(BUCKET, key, new byte[0]);
        try (SeekableS3InputStream stream = factory(1).open(new S3Location(BUCKET, key))) {
            assertEmpty(stream);
        }
        assertThat(client.count("HEAD"))
                .as("a 416 to a suffix or a range from 0 says empty: no HEAD")
                .isZero();
    }

    @Test
    void sixteenEmptyObjectsOpenedAtOnceWithSixteenSlotsAllReadAsEmpty() throws Exception {
        StreamFactory factory = factory(16);
        ExecutorService readers = Executors.newFixedThreadPool(16);
        try {
            List<Future<Integer>> reads = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                String key = "empty-" + i + ".orc";
                client.put(BUCKET, key, new byte[0]);
                reads.add(readers.submit(() -> {
                    try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, key))) {
                        return stream.read();
                    }
                }));
            }
            for (Future<Integer> read : reads) {
                assertThat(read.get(30, TimeUnit.SECONDS)).isEqualTo(-1);
            }
        } finally {
            readers.shutdownNow();
            assertThat(readers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void anEmptyObjectOfKnownLengthOpensWithEveryPolicyAndSendsNothing() throws Exception {
        StreamFactory factory = factory(1);
        for (String key : KEYS) {
            client.put(BUCKET, key, new byte[0]);
            try (SeekableS3InputStream stream = factory.open(
                    new S3Location(BUCKET, key), OpenOptions.builder().length(0).build())) {
                assertEmpty(stream);
            }
        }
        assertThat(client.requests()).isEmpty();
    }

    @Test
    void anOrcTailSizeOfZeroTurnsTheTailFetchOffWithoutAGetOrAWarning() throws Exception {
        byte[] data = fixture.put("no-tail.orc", 2 * MIB);
        StreamConfig config = StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 64L * MIB)
                .set(OrcFormatPolicy.TAIL_SIZE, 0)
                .build();
        StreamFactory factory = fixture.factory(config, List.of(new OrcFormatPolicy()));
        try (LogCapture log = LogCapture.start();
                SeekableS3InputStream stream = factory.open(
                        new S3Location(BUCKET, "no-tail.orc"),
                        OpenOptions.builder()
                                .length(data.length)
                                .etag(client.etag(BUCKET, "no-tail.orc"))
                                .build())) {
            // with a known length the session opens on this thread: anything it sent would be logged by now
            assertThat(client.requests()).isEmpty();
            assertThat(log.warnings("no-tail.orc")).isZero();
        }
    }
}
