package io.rangefetch.parquet;

import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.StreamFixture;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A footer that is not one turns column prefetch off for the file, and reads still return the right bytes. */
class ParquetFormatPolicyTest {
    private static final int LENGTH = 1 << 20;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @Test
    void badMagicImpossibleLengthAndUndecodableThriftAreCorruptFooters() throws Exception {
        assertThatThrownBy(() -> ParquetFooter.footerLength(trailer(100, "PAR2"), LENGTH))
                .isInstanceOf(ParquetFooter.CorruptFooterException.class)
                .hasMessageContaining("PAR1");
        assertThatThrownBy(() -> ParquetFooter.footerLength(trailer(LENGTH, "PAR1"), LENGTH))
                .isInstanceOf(ParquetFooter.CorruptFooterException.class)
                .hasMessageContaining("length");
        assertThatThrownBy(() -> ParquetFooter.footerLength(trailer(-5, "PAR1"), LENGTH))
                .isInstanceOf(ParquetFooter.CorruptFooterException.class);
        assertThatThrownBy(() -> ParquetFooter.parse(new byte[] {(byte) 0xff, 1, 2, 3, 4, 5, 6}, LENGTH))
                .isInstanceOf(ParquetFooter.CorruptFooterException.class);
        assertThat(ParquetFooter.footerLength(trailer(100, "PAR1"), LENGTH)).isEqualTo(100);
    }

    @Test
    void aCorruptFooterTurnsPrefetchOffAndReadsStillReturnTheRightBytes() throws Exception {
        byte[] data = fixture.put("corrupt.parquet", LENGTH);
        // a trailer that claims a footer of 1,000 bytes of noise: it will not decode
        System.arraycopy(trailer(1000, "PAR1"), 0, data, LENGTH - 8, 8);
        fixture.client().put(StreamFixture.BUCKET, "corrupt.parquet", data);
        ParquetFormatPolicy policy = new ParquetFormatPolicy();
        StreamFactory factory =
                fixture.factory(StreamConfig.builder().set(SMALL_OBJECT_SIZE, 0).build(), List.of(policy));
        String etag = fixture.client().etag(StreamFixture.BUCKET, "corrupt.parquet");
        OpenOptions known = OpenOptions.builder().length(LENGTH).etag(etag).build();
        S3Location location = new S3Location(StreamFixture.BUCKET, "corrupt.parquet");
        try (SeekableS3InputStream stream = factory.open(location, known)) {
            assertThat(policy.footerOf(location, etag).orElseThrow().get(10, TimeUnit.SECONDS))
                    .as("not a footer: column awareness is off for the file")
                    .isNull();
            fixture.awaitQuiet();
            int tailGets = fixture.client().gets().size();
            assertThat(tailGets).as("the tail, fetched on open").isEqualTo(1);
            List<FileRange> chunks = List.of(FileRange.of(0, 1000), FileRange.of(4096, 1000));
            stream.readVectored(chunks, ByteBuffer::allocate);
            assertThat(chunks.get(1).data().get(10, TimeUnit.SECONDS)).isEqualTo(ByteBuffer.wrap(data, 4096, 1000));
            byte[] buffer = new byte[4096];
            stream.readFully(LENGTH - 4096, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, LENGTH - 4096, LENGTH));
            fixture.awaitQuiet();
            assertThat(fixture.client().gets())
                    .as("the vectored read's own GET, and no column prefetch")
                    .hasSize(tailGets + 1);
        }
    }

    @Test
    void anEmptyParquetObjectIsNotAFooterAndReadsEmpty() throws Exception {
        fixture.client().put(StreamFixture.BUCKET, "empty.parquet", new byte[0]);
        ParquetFormatPolicy policy = new ParquetFormatPolicy();
        StreamFactory factory = fixture.factory(StreamConfig.defaults(), List.of(policy));
        S3Location location = new S3Location(StreamFixture.BUCKET, "empty.parquet");
        for (int stream = 0; stream < 2; stream++) {
            // nothing known at open: the length comes from the first GET's 416, which carries no ETag
            try (SeekableS3InputStream empty = factory.open(location)) {
                assertThat(empty.read()).isEqualTo(-1);
                assertThat(empty.read(new byte[10], 0, 10)).isEqualTo(-1);
            }
            fixture.awaitQuiet();
        }
        assertThat(policy.footerOf(location, "").orElseThrow().get(10, TimeUnit.SECONDS))
                .as("too short to be Parquet: column awareness off, not the policy failing")
                .isNull();
        assertThat(policy.footersHeld(location, ""))
                .as("refused once for the file")
                .isEqualTo(1);
    }

    @Test
    void openingFetchesTheTailAFileOfItsSizeNeeds() throws Exception {
        StreamFactory factory = fixture.factory(
                StreamConfig.builder()
                        .set(SMALL_OBJECT_SIZE, 0)
                        .set(ParquetFormatPolicy.FOOTER_PRECACHE_SIZE, 64L << 10)
                        .set(ParquetFormatPolicy.LARGE_FOOTER_PRECACHE_SIZE, 256L << 10)
                        .set(ParquetFormatPolicy.LARGE_FILE_SIZE, 1L << 20)
                        .build(),
                List.of(new ParquetFormatPolicy()));
        fixture.put("small.parquet", 1 << 20);
        fixture.put("large.parquet", (1 << 20) + 1);
        for (String key : List.of("small.parquet", "large.parquet")) {
            OpenOptions known = OpenOptions.builder()
                    .length(fixture.length(key))
                    .etag(fixture.client().etag(StreamFixture.BUCKET, key))
                    .build();
            try (SeekableS3InputStream stream = factory.open(new S3Location(StreamFixture.BUCKET, key), known)) {
                byte[] trailer = new byte[8];
                stream.readTail(trailer, 0, trailer.length); // waits for the open fetch
            }
        }
        fixture.awaitQuiet();
        assertThat(fixture.client().gets())
                .extracting(get -> get.key() + " " + get.range())
                .containsExactly(
                        "small.parquet bytes=" + ((1 << 20) - (64 << 10)) + "-" + ((1 << 20) - 1),
                        "large.parquet bytes=" + ((1 << 20) + 1 - (256 << 10)) + "-" + (1 << 20));
    }

    @Test
    void aFooterParsedFromOneIdentitysBytesIsNotHandedToAnother() throws Exception {
        byte[] data = fixture.put("shared.parquet", LENGTH);
        System.arraycopy(trailer(1000, "PAR1"), 0, data, LENGTH - 8, 8);
        fixture.client().put(StreamFixture.BUCKET, "shared.parquet", data);
        fixture.client().addUser("AKIDONE", "one-secret", null, java.util.Set.of(StreamFixture.BUCKET));
        fixture.client().addUser("AKIDTWO", "two-secret", null, java.util.Set.of(StreamFixture.BUCKET));
        ParquetFormatPolicy policy = new ParquetFormatPolicy();
        StreamFactory factory =
                fixture.factory(StreamConfig.builder().set(SMALL_OBJECT_SIZE, 0).build(), List.of(policy));
        String etag = fixture.client().etag(StreamFixture.BUCKET, "shared.parquet");
        S3Location location = new S3Location(StreamFixture.BUCKET, "shared.parquet");
        List<String> readers = List.of("ONE", "TWO", "ONE");
        for (String reader : readers) {
            OpenOptions options = OpenOptions.builder()
                    .length(LENGTH)
                    .etag(etag)
                    .credentials(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                                    "AKID" + reader, reader.toLowerCase(java.util.Locale.ROOT) + "-secret")))
                    .build();
            try (SeekableS3InputStream stream = factory.open(location, options)) {
                policy.footerOf(location, etag).orElseThrow().get(10, TimeUnit.SECONDS);
                stream.readFully(0, new byte[10], 0, 10);
            }
            fixture.awaitQuiet();
        }
        assertThat(policy.footersHeld(location, etag))
                .as("one parsed footer per identity: the second reader's own, the first's reused by its next stream")
                .isEqualTo(2);
    }

    private static byte[] trailer(int footerLength, String magic) {
        return ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(footerLength)
                .put(magic.getBytes(StandardCharsets.US_ASCII))
                .array();
    }
}
