package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.S3Location;
import io.rangefetch.client.SseCustomerKey;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.LogCapture;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An SSE-C key goes with every GET and HEAD of its stream, and nowhere else: no log, message or toString. */
class SseCustomerKeyTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final String KEY = Base64.getEncoder().encodeToString(TestData.bytes(32, 77));

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private static Throwable thrown(ThrowingCall call) {
        try {
            call.run();
        } catch (Throwable e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    private static String everything(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            text.append(cause).append('\n');
            for (Throwable suppressed : cause.getSuppressed()) {
                text.append(suppressed).append('\n');
            }
        }
        return text.toString();
    }

    @Test
    void everyRequestCarriesTheKeyAndNoMessageLogOrToStringShowsIt() throws Exception {
        client.putEncrypted(BUCKET, "secret.bin", TestData.bytes(20 * MIB, 1), SseCustomerKey.ofBase64(KEY));
        StreamFactory factory = fixture.factory();
        OpenOptions options = OpenOptions.builder().sseCustomerKey(KEY).build();
        List<String> texts = new ArrayList<>();
        try (LogCapture log = LogCapture.start()) {
            try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "secret.bin"), options)) {
                texts.add(options.toString());
                texts.add(SseCustomerKey.ofBase64(KEY).toString());
                texts.add(stream.toString());
                assertThat(stream.length()).isEqualTo(20L * MIB); // a HEAD
                stream.readFully(MIB, new byte[1000], 0, 1000);
                FileRange range = FileRange.of(9L * MIB, 1000);
                stream.readVectored(List.of(range), ByteBuffer::allocate);
                range.data().get(30, TimeUnit.SECONDS);
                // failures: retries that run out, a missing object, a changed one
                client.addFault(InMemoryObjectClient.failWhen(
                        request -> request.range() != null && request.range().startsWith("bytes=15"),
                        new HttpStatusException("HTTP 503", 503, null)));
                texts.add(everything(thrown(() -> stream.readFully(15L * MIB, new byte[10], 0, 10))));
                client.putEncrypted(BUCKET, "secret.bin", TestData.bytes(20 * MIB, 2), SseCustomerKey.ofBase64(KEY));
                texts.add(everything(thrown(() -> stream.readFully(3L * MIB, new byte[10], 0, 10))));
                FileRange failing = FileRange.of(4L * MIB, 10);
                // the stream failed for good above: the vectored read fails at once, or through its future
                texts.add(everything(thrown(() -> {
                    stream.readVectored(List.of(failing), ByteBuffer::allocate);
                    failing.data().get(30, TimeUnit.SECONDS);
                })));
            }
            try (SeekableS3InputStream missing = factory.open(new S3Location(BUCKET, "missing.bin"), options)) {
                texts.add(everything(thrown(missing::read)));
            }
            texts.add(factory.statistics().toString());
            assertThat(log.anyLineHolds(KEY)).as("a logged line holds the key").isFalse();
        }
        assertThat(texts).noneMatch(text -> text.contains(KEY));
        fixture.awaitQuiet();
        assertThat(client.sseKeysSent())
                .isNotEmpty()
                .allSatisfy(sent -> assertThat(sent).isEqualTo(SseCustomerKey.ofBase64(KEY)));
        assertThat(client.requests())
                .extracting(InMemoryObjectClient.Request::method)
                .contains("GET", "HEAD");
    }
}
