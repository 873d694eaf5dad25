package io.rangefetch.it;

import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A CSV object read through the text format policy from a real S3 server, as a line reader reads a task's split:
 * subclassed once per backend. The clients reach the server through a {@link io.rangefetch.testing.proxy.ShapingProxy}
 * that does not shape; its ledger shows every GET's range. Every byte read is compared with the object uploaded.
 *
 * <p>What it pins: a split's prefetch stops at the split's end, so reading the split and the start of the next
 * record past it never fetches more than one minimum request past the end; without a split, reading front to back
 * is prefetched, with far fewer GETs than reads.
 */
abstract class TextSplitSuite extends ProxiedS3ServerTestBase {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * 1024;
    // No hedging: these tests count GETs, and a hedge (a second GET of bytes whose first byte is late on the real
    // clock) is what a loaded machine makes, not what the reads ask for.
    private static final StreamConfig DEFAULTS =
            StreamConfig.builder().set(StreamConfig.HEDGE_ENABLED, false).build();
    private static final String NAME = "lines.csv";
    /** What a line reader asks of the stream at a time. */
    private static final int READ_SIZE = 8 * KIB;
    /** How far past its split's end a line reader reads to finish its last record. */
    private static final int PAST_SPLIT = 1000;

    private byte[] object;

    TextSplitSuite() {
        super(NetworkModel.unshaped());
    }

    @BeforeAll
    void uploadTheObject() {
        object = csv(20 * MIB);
        try (S3Client s3 = S3Clients.sync(server())) {
            put(s3, NAME, object);
        }
    }

    /**
     * The middle third of the object as a task's split, opened with the length known, read in 8 KiB reads from the
     * split's start to its end and then 1,000 bytes more: the bytes are the object's, and no GET asks for a byte
     * past one minimum request ({@code read.min-request-size}, 64 KiB) beyond the split's end.
     */
    @Test
    void aSplitFetchesNothingPastOneMinimumRequestBeyondItsEnd() throws Exception {
        long start = object.length / 3 + 17;
        long end = 2L * object.length / 3 + 29;
        ProxyLedger ledger = countingLedger();
        withFactory(DEFAULTS, factory -> {
            OpenOptions options = OpenOptions.builder()
                    .length(object.length)
                    .split(start, end)
                    .build();
            try (SeekableS3InputStream stream = factory.open(location(), options)) {
                stream.seek(start);
                byte[] read = readUntil(stream, end + PAST_SPLIT).bytes();
                assertSameBytes(object, read, start, "the split read from " + start);
            }
        });
        long limit = end + DEFAULTS.get(MIN_REQUEST_SIZE);
        assertThat(ledger.requests()).as("GETs").isNotEmpty().allSatisfy(request -> {
            assertThat(request.method()).isEqualTo("GET");
            assertThat(request.rangeHeader()).as("a closed range").matches("bytes=\\d+-\\d+");
            assertThat(lastByte(request.rangeHeader()) + 1)
                    .as("end of %s, against the split's end %d", request.rangeHeader(), end)
                    .isLessThanOrEqualTo(limit);
        });
    }

    /**
     * The same object opened without a split or a length, read front to back in 8 KiB reads: the bytes are the
     * object's, and prefetch makes the GETs far fewer than the reads (2,560 of them): no more than one a MiB.
     */
    @Test
    void anUnsplitObjectReadFrontToBackIsPrefetched() throws Exception {
        ProxyLedger ledger = countingLedger();
        long[] reads = new long[1];
        withFactory(DEFAULTS, factory -> {
            try (SeekableS3InputStream stream = factory.open(location())) {
                Read read = readUntil(stream, Long.MAX_VALUE);
                assertSameBytes(object, read.bytes(), 0, "the object read front to back");
                assertThat(read.bytes()).hasSameSizeAs(object);
                reads[0] = read.reads();
            }
        });
        assertThat(reads[0]).as("reads").isGreaterThanOrEqualTo(object.length / READ_SIZE);
        assertThat(ledger.gets()).as("GETs: %s", ledger.requests()).isLessThanOrEqualTo(object.length / MIB);
        assertThat(ledger.heads()).isZero();
    }

    private S3Location location() {
        return new S3Location(bucket(), key(NAME));
    }

    /** What {@link #readUntil} read, and in how many calls. */
    private record Read(byte[] bytes, long reads) {}

    /** Streams {@link #READ_SIZE}-byte reads from the stream's position until {@code end} or the object's end. */
    private static Read readUntil(SeekableS3InputStream stream, long end) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[READ_SIZE];
        long reads = 0;
        while (stream.getPos() < end) {
            int n = stream.read(buffer, 0, (int) Math.min(buffer.length, end - stream.getPos()));
            if (n < 0) {
                break;
            }
            out.write(buffer, 0, n);
            reads++;
        }
        return new Read(out.toByteArray(), reads);
    }

    /** About {@code length} bytes of CSV lines: an id, a word, a number; the same every run. */
    private static byte[] csv(int length) {
        SplittableRandom random = new SplittableRandom(7);
        StringBuilder text = new StringBuilder(length + 100);
        for (long id = 0; text.length() < length; id++) {
            text.append(id)
                    .append(",word")
                    .append(random.nextInt(1_000_000))
                    .append(',')
                    .append(random.nextDouble())
                    .append('\n');
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** The last byte a {@code bytes=first-last} range names. */
    private static long lastByte(String rangeHeader) {
        return Long.parseLong(rangeHeader.substring(rangeHeader.indexOf('-') + 1));
    }
}
