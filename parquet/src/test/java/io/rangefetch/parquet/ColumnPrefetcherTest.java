package io.rangefetch.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.OpenOptions;
import io.rangefetch.S3Location;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ByteRange;
import io.rangefetch.testing.StreamFixture;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A footer that is not one turns column prefetch off for the file, and reads still return the right bytes. */
class ColumnPrefetcherTest {
    private static final int LENGTH = 1 << 20;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @Test
    void badMagicImpossibleLengthAndUndecodableThriftAreCorruptFooters() throws Exception {
        assertThatThrownBy(() -> ParquetFooter.footerLength(trailer(100, "PAR2"), LENGTH))
                .isInstanceOf(ParquetFooter.CorruptFooterException.class).hasMessageContaining("PAR1");
        assertThatThrownBy(() -> ParquetFooter.footerLength(trailer(LENGTH, "PAR1"), LENGTH))
                .isInstanceOf(ParquetFooter.CorruptFooterException.class).hasMessageContaining("length");
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
        StreamFactory factory = fixture.factory();
        ColumnPrefetcher prefetcher = new ColumnPrefetcher("corrupt.parquet", 64 << 20, new ColumnHistory());
        OpenOptions known = OpenOptions.builder().length(LENGTH)
                .etag(fixture.client().etag(StreamFixture.BUCKET, "corrupt.parquet")).build();
        try (SeekableS3InputStream stream = factory.open(new S3Location(StreamFixture.BUCKET, "corrupt.parquet"),
                known)) {
            prefetcher.afterVectoredRead(stream, List.of(ByteRange.ofLength(0, 1000)));
            prefetcher.afterVectoredRead(stream, List.of(ByteRange.ofLength(0, 1000))); // off: parses no more
            byte[] buffer = new byte[4096];
            stream.readFully(LENGTH - 4096, buffer, 0, buffer.length);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, LENGTH - 4096, LENGTH));
            assertThat(stream.statistics().prefetchedBytes()).isZero();
        }
    }

    private static byte[] trailer(int footerLength, String magic) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(footerLength)
                .put(magic.getBytes(StandardCharsets.US_ASCII)).array();
    }
}
