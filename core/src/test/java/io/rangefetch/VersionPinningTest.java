package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.ReaderThreads;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One stream, one version, on any interleaving of its readers: the interleavings are decided by held bodies, never
 * by timing.
 */
@Timeout(60)
class VersionPinningTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final int KIB = 1024;
    private static final int SIZE = 20 * MIB; // above the small-object size: reads fetch only their ranges

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    @RegisterExtension
    final ReaderThreads threads = new ReaderThreads();

    private static S3Location at(String key) {
        return new S3Location(BUCKET, key);
    }

    private static byte[] slice(byte[] data, long from, int length) {
        return Arrays.copyOfRange(data, (int) from, (int) from + length);
    }

    /** A factory that knows the object's first version (a stream read it), as a metadata cache entry does. */
    private StreamFactory factoryThatKnows(String key) throws IOException {
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(PREFETCH_MAX_SIZE, 0)
                .build());
        try (SeekableS3InputStream learner = factory.open(at(key))) {
            assertThat(learner.length()).isEqualTo(SIZE);
        }
        client.clearLog();
        return factory;
    }

    private static boolean startsAt(Request request, long offset) {
        return request.isGet() && request.range().startsWith("bytes=" + offset + "-");
    }

    @Test
    void aReadThatFindsTheObjectChangedWhileAnotherReadOfTheOldVersionIsInFlightFailsInsteadOfMoving()
            throws Exception {
        byte[] first = fixture.put("two-readers", SIZE);
        StreamFactory factory = factoryThatKnows("two-readers");
        BodyHold held = client.holdBodies(request -> startsAt(request, 0));
        try (SeekableS3InputStream stream = factory.open(at("two-readers"))) {
            // A: its GET (If-Match the first version) is answered, its body still on the wire
            Future<byte[]> a = threads.submit(() -> {
                byte[] bytes = new byte[KIB];
                stream.readFully(0, bytes, 0, KIB);
                return bytes;
            });
            assertThat(held.awaitHeld(1)).isTrue();
            byte[] second = TestData.bytes(SIZE, 2);
            client.put(BUCKET, "two-readers", second);
            // B: 412; A has started on the first version, so the stream must not move to the second
            assertThatThrownBy(() -> stream.readFully(10L * MIB, new byte[KIB], 0, KIB))
                    .isInstanceOf(ObjectChangedException.class);
            held.release();
            assertThat(a.get()).isEqualTo(slice(first, 0, KIB));
            // and it stays failed: no later read returns bytes of the second version
            assertThatThrownBy(() -> stream.readFully(0, new byte[KIB], 0, KIB))
                    .isInstanceOf(ObjectChangedException.class);
            assertThatThrownBy(() -> stream.read(new byte[KIB], 0, KIB)).isInstanceOf(ObjectChangedException.class);
        }
    }

    @Test
    void aVectoredReadInFlightOnTheOldVersionAlsoKeepsAnotherReaderFromMoving() throws Exception {
        byte[] first = fixture.put("vectored-reader", SIZE);
        StreamFactory factory = factoryThatKnows("vectored-reader");
        BodyHold held = client.holdBodies(request -> startsAt(request, 0));
        try (SeekableS3InputStream stream = factory.open(at("vectored-reader"))) {
            FileRange range = FileRange.of(0, KIB);
            stream.readVectored(List.of(range), ByteBuffer::allocate);
            assertThat(held.awaitHeld(1)).isTrue();
            client.put(BUCKET, "vectored-reader", TestData.bytes(SIZE, 3));
            assertThatThrownBy(() -> stream.readFully(10L * MIB, new byte[KIB], 0, KIB))
                    .isInstanceOf(ObjectChangedException.class);
            held.release();
            ByteBuffer bytes = range.data().get(30, TimeUnit.SECONDS);
            byte[] copy = new byte[KIB];
            bytes.get(copy);
            assertThat(copy).isEqualTo(slice(first, 0, KIB));
        }
    }

    @Test
    void aVectoredReadThatFindsTheObjectChangedFailsItsRangesWithObjectChanged() throws Exception {
        fixture.put("vectored-finds", SIZE);
        StreamFactory factory = factoryThatKnows("vectored-finds");
        client.put(BUCKET, "vectored-finds", TestData.bytes(SIZE, 4));
        try (SeekableS3InputStream stream = factory.open(at("vectored-finds"))) {
            FileRange range = FileRange.of(MIB, KIB);
            stream.readVectored(List.of(range), ByteBuffer::allocate);
            assertThatThrownBy(() -> range.data().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(ObjectChangedException.class);
        }
    }

    @Test
    void theOnlyReadOfAStaleVersionMovesSilentlyAndAReaderWaitingMeanwhileSeesOnlyTheNewVersion() throws Exception {
        fixture.put("moves", SIZE);
        StreamFactory factory = factoryThatKnows("moves");
        byte[] second = TestData.bytes(SIZE, 5);
        client.put(BUCKET, "moves", second);
        // the request that learns the new version (no If-Match) is held while a second reader arrives
        BodyHold relearning = client.holdBodies(request -> request.isGet() && request.ifMatch() == null);
        try (SeekableS3InputStream stream = factory.open(at("moves"))) {
            Future<byte[]> a = threads.submit(() -> {
                byte[] bytes = new byte[KIB];
                stream.readFully(12L * MIB, bytes, 0, KIB);
                return bytes;
            });
            assertThat(relearning.awaitHeld(1)).isTrue();
            Future<byte[]> b = threads.submit(() -> {
                byte[] bytes = new byte[KIB];
                stream.readFully(3L * MIB, bytes, 0, KIB);
                return bytes;
            });
            relearning.release();
            // neither sees the version half-replaced: no false end of file, no missing ETag, only new bytes
            assertThat(a.get()).isEqualTo(slice(second, 12L * MIB, KIB));
            assertThat(b.get()).isEqualTo(slice(second, 3L * MIB, KIB));
            assertThat(stream.length()).isEqualTo(SIZE);
        }
        // one 412, one request learning the new version; the second reader waited for it instead of sending its own
        assertThat(client.gets().stream().filter(get -> get.ifMatch() == null)).hasSize(1);
    }

    @Test
    void aStreamingReaderThatReadTheOldVersionFailsOnTheNextReadThatNeedsAGet() throws Exception {
        byte[] first = fixture.put("streaming", SIZE);
        StreamFactory factory = factoryThatKnows("streaming");
        try (SeekableS3InputStream stream = factory.open(at("streaming"))) {
            byte[] bytes = new byte[KIB];
            assertThat(stream.read(bytes, 0, KIB)).isEqualTo(KIB);
            assertThat(bytes).isEqualTo(slice(first, 0, KIB));
            client.put(BUCKET, "streaming", TestData.bytes(SIZE, 6));
            stream.seek(15L * MIB);
            assertThatThrownBy(() -> stream.read(bytes, 0, KIB)).isInstanceOf(ObjectChangedException.class);
        }
    }

    @Test
    void askingForTheLengthStartsTheVersionLikeARead() throws Exception {
        fixture.put("length-first", SIZE);
        StreamFactory factory = factoryThatKnows("length-first");
        try (SeekableS3InputStream stream = factory.open(at("length-first"))) {
            assertThat(stream.length()).isEqualTo(SIZE); // the caller now knows the first version's length
            client.put(BUCKET, "length-first", TestData.bytes(SIZE + MIB, 7));
            assertThatThrownBy(() -> stream.readFully(SIZE - KIB, new byte[KIB], 0, KIB))
                    .isInstanceOf(ObjectChangedException.class);
        }
    }
}
