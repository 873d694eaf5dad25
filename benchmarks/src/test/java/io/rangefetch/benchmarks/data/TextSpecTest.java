package io.rangefetch.benchmarks.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TextSpecTest {

    private final TextSpec spec = new TextSpec("lines.txt", 100_000 + 17, 7);

    @Test
    void anyRangeIsTheSameSliceOfTheWrittenObject(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("lines.txt");
        long[] reported = {0};
        spec.writeTo(file, bytes -> reported[0] += bytes);
        byte[] whole = Files.readAllBytes(file);

        assertThat(whole).hasSize((int) spec.size());
        assertThat(reported[0]).isEqualTo(spec.size());
        for (long offset : new long[] {0, 1, 63, 64, 65, 8191, 99_000, spec.size() - 10}) {
            int length = (int) Math.min(1000, spec.size() - offset);
            assertThat(spec.bytes(offset, length))
                    .as("offset %d", offset)
                    .isEqualTo(Arrays.copyOfRange(whole, (int) offset, (int) offset + length));
        }
        CRC32C crc = new CRC32C();
        crc.update(whole);
        assertThat(spec.checksum()).isEqualTo(crc.getValue());
    }

    @Test
    void linesAreNumberedFixedWidthText() {
        String first = new String(spec.bytes(0, 2 * TextSpec.LINE_WIDTH), java.nio.charset.StandardCharsets.US_ASCII);

        assertThat(first).matches("0000000000 [a-z]{52}\n0000000001 [a-z]{52}\n");
    }

    @Test
    void seedsGiveDifferentTextAndTheMarkerSaysSo() {
        TextSpec other = new TextSpec("lines.txt", spec.size(), 8);

        assertThat(other.bytes(0, 64)).isNotEqualTo(spec.bytes(0, 64));
        assertThat(other.marker()).isNotEqualTo(spec.marker());
    }

    @Test
    void rangesOutsideTheObjectAreRefused() {
        assertThatThrownBy(() -> spec.bytes(spec.size() - 1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
