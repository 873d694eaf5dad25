package io.rangefetch.hadoop;

import java.io.EOFException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.FileRange;

/**
 * The checks Hadoop makes of a vectored read's ranges, made here so that they are the same on every Hadoop line
 * Rangefetch serves: Hadoop 3.4's {@code VectoredReadUtils.validateAndSortRanges} is not in 3.3.x, whose own check
 * has another name and other exceptions. What a caller sees, as on Hadoop 3.4 and later: a null list or range is a
 * {@link NullPointerException}; a negative length or two overlapping ranges an {@link IllegalArgumentException}; a
 * negative offset, or a range that starts or ends past the end of the object, an {@link EOFException}. An empty
 * list is valid (Spark can pass one through Parquet).
 */
final class FileRanges {
    private FileRanges() {}

    /**
     * The ranges sorted by offset, after checking them against {@code length}; the message of a failure names the
     * range and {@code uri}.
     */
    static List<? extends FileRange> validateAndSort(List<? extends FileRange> ranges, long length, String uri)
            throws EOFException {
        if (ranges == null) {
            throw new NullPointerException("Null range list to read from " + uri);
        }
        List<FileRange> sorted = new ArrayList<>(ranges.size());
        for (FileRange range : ranges) {
            if (range == null) {
                throw new NullPointerException("A range to read from " + uri + " is null: " + ranges);
            }
            if (range.getLength() < 0) {
                throw new IllegalArgumentException("Length is negative in " + range + " of " + uri);
            }
            if (range.getOffset() < 0) {
                throw new EOFException("Position is negative in range " + range + " of " + uri);
            }
            sorted.add(range);
        }
        sorted.sort(Comparator.comparingLong(FileRange::getOffset));
        for (int i = 1; i < sorted.size(); i++) {
            FileRange previous = sorted.get(i - 1);
            FileRange next = sorted.get(i);
            if (next.getOffset() < previous.getOffset() + previous.getLength()) {
                throw new IllegalArgumentException(
                        "Overlapping ranges " + previous + " and " + next + " to read from " + uri);
            }
        }
        if (!sorted.isEmpty()) {
            FileRange last = sorted.get(sorted.size() - 1);
            if (last.getOffset() >= length) {
                throw new EOFException("Range starts beyond the file length (" + length + ") of " + uri + ": " + last);
            }
            if (last.getOffset() + last.getLength() > length) {
                throw new EOFException("Range extends beyond the file length (" + length + ") of " + uri + ": " + last);
            }
        }
        return sorted;
    }
}
