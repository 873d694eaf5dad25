package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SeekableS3InputStream.ForeignRanges;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.StreamFixture;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one vectored read the adapters share: another library's ranges get their bytes, a range's failure reaches it as
 * the adapter translates it, and a failed call fails every range (nobody waits forever) and throws the translation.
 */
class ForeignRangesTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int KIB = 1024;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    /** A range type of some other library: its own offset, length and future. */
    private record Theirs(long offset, int length, CompletableFuture<ByteBuffer> bytes) {
        Theirs(long offset, int length) {
            this(offset, length, new CompletableFuture<>());
        }
    }

    /** What the adapter translated, and into what. */
    private static final class TheirFailure extends IOException {
        TheirFailure(Throwable cause) {
            super("theirs: " + cause.getMessage(), cause);
        }
    }

    private static final ForeignRanges<Theirs> THEIRS = ForeignRanges.of(
            Theirs::offset,
            Theirs::length,
            (range, data) -> data.whenComplete((buffer, failure) -> {
                if (failure == null) {
                    range.bytes().complete(buffer);
                } else {
                    range.bytes().completeExceptionally(failure);
                }
            }),
            (range, failure) -> new TheirFailure(failure));

    private SeekableS3InputStream openKnown(String key) {
        OpenOptions options = OpenOptions.builder()
                .length(fixture.length(key))
                .etag(client.etag(BUCKET, key))
                .build();
        return fixture.factory().open(new S3Location(BUCKET, key), options);
    }

    private static byte[] bytesOf(Theirs range) throws Exception {
        ByteBuffer buffer = range.bytes().get(30, TimeUnit.SECONDS);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    @Test
    void theirRangesGetExactlyTheirBytesInAnyOrder() throws Exception {
        byte[] data = fixture.put("theirs", 512 * KIB);
        List<Theirs> ranges = List.of(new Theirs(300 * KIB, 10), new Theirs(0, 5), new Theirs(100 * KIB, 64 * KIB));
        try (SeekableS3InputStream stream = openKnown("theirs")) {
            stream.readVectored(ranges, THEIRS, ByteBuffer::allocate, buffer -> {});
            for (Theirs range : ranges) {
                assertThat(bytesOf(range))
                        .isEqualTo(
                                Arrays.copyOfRange(data, (int) range.offset(), (int) range.offset() + range.length()));
            }
        }
    }

    @Test
    void aRangeThatFailsGetsItsFailureAsTheAdapterTranslatesIt() throws Exception {
        fixture.put("gone", 512 * KIB);
        Theirs range = new Theirs(200 * KIB, 4 * KIB);
        try (SeekableS3InputStream stream = openKnown("gone")) {
            client.delete(BUCKET, "gone"); // the stream knows length and ETag: the call returns, the GET fails
            stream.readVectored(List.of(range), THEIRS, ByteBuffer::allocate, buffer -> {});
            assertThatThrownBy(() -> range.bytes().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(TheirFailure.class)
                    .cause()
                    .isInstanceOf(FileNotFoundException.class)
                    .hasMessageContaining("gone");
        }
    }

    @Test
    void aCallThatFailsFailsEveryRangeAndThrowsTheTranslation() throws Exception {
        fixture.put("overlapping", 512 * KIB);
        List<Theirs> ranges = List.of(new Theirs(0, 100), new Theirs(50, 100), new Theirs(400 * KIB, 10));
        try (SeekableS3InputStream stream = openKnown("overlapping")) {
            assertThatThrownBy(() -> stream.readVectored(ranges, THEIRS, ByteBuffer::allocate, buffer -> {}))
                    .isInstanceOf(TheirFailure.class)
                    .hasCauseInstanceOf(IllegalArgumentException.class);
            for (Theirs range : ranges) {
                assertThat(range.bytes())
                        .isCompletedExceptionally()
                        .failsWithin(0, TimeUnit.SECONDS)
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(TheirFailure.class);
            }
            assertThat(client.requests()).isEmpty();
        }
    }
}
