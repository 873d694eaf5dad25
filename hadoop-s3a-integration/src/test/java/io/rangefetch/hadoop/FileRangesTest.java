package io.rangefetch.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileRange;
import org.junit.jupiter.api.Test;

/** Vectored ranges are checked as Hadoop 3.4 checks them, on every Hadoop line: same exceptions, same order. */
class FileRangesTest {
    private static final String URI = "s3a://bucket/key";

    private static FileRange range(long offset, int length) {
        return FileRange.createFileRange(offset, length);
    }

    @Test
    void rangesComeBackSortedByOffsetAndMayTouch() throws EOFException {
        FileRange last = range(200, 50);
        FileRange first = range(0, 100);
        FileRange touching = range(100, 100);

        List<FileRange> sorted = new ArrayList<>(FileRanges.validateAndSort(List.of(last, first, touching), 250, URI));
        assertThat(sorted).containsExactly(first, touching, last);
        assertThat(FileRanges.validateAndSort(List.of(), 0, URI)).isEmpty();
    }

    @Test
    void overlappingRangesAndANegativeLengthAreTheCallersMistake() {
        assertThatThrownBy(() -> FileRanges.validateAndSort(List.of(range(0, 100), range(99, 10)), 1000, URI))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Overlapping")
                .hasMessageContaining(URI);
        assertThatThrownBy(() -> FileRanges.validateAndSort(List.of(range(0, -1)), 1000, URI))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
    }

    @Test
    void aNegativeOffsetOrARangePastTheEndIsAnEndOfFile() {
        assertThatThrownBy(() -> FileRanges.validateAndSort(List.of(range(-1, 10)), 1000, URI))
                .isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> FileRanges.validateAndSort(List.of(range(0, 10), range(1000, 1)), 1000, URI))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("starts beyond");
        assertThatThrownBy(() -> FileRanges.validateAndSort(List.of(range(990, 11)), 1000, URI))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("extends beyond");
    }

    @Test
    void aNullListOrRangeIsANullPointer() {
        List<FileRange> withNull = new ArrayList<>();
        withNull.add(range(0, 1));
        withNull.add(null);

        assertThatThrownBy(() -> FileRanges.validateAndSort(null, 1000, URI)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> FileRanges.validateAndSort(withNull, 1000, URI))
                .isInstanceOf(NullPointerException.class);
    }
}
