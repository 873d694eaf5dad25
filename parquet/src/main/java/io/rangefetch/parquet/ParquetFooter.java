package io.rangefetch.parquet;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

/**
 * Where the column chunks of a Parquet file lie: per row group, each chunk's column path and bytes (from its
 * dictionary page, if any, to the end of its data pages). Parsed from the footer's Thrift with
 * parquet-format-structures, checking the trailer's magic and length first, so a corrupt footer fails here with
 * a message rather than somewhere in a prefetch.
 */
record ParquetFooter(
        List<List<Chunk>> rowGroups, List<Chunk> byStart, List<PageIndex> pageIndexes, Set<String> schema) {
    static final int TRAILER_BYTES = 8;
    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    /**
     * @param byStart every chunk, by where it starts
     * @param pageIndexes every chunk's page indexes, by where they start
     * @param schema the file's column paths: what identifies its schema to the column history
     */
    ParquetFooter {
        rowGroups = rowGroups.stream().map(List::copyOf).toList();
        byStart = List.copyOf(byStart);
        pageIndexes = List.copyOf(pageIndexes);
        schema = Set.copyOf(schema);
    }

    /** The footer of these row groups, with its lookups computed once (reads consult them on every chunk). */
    ParquetFooter(List<List<Chunk>> rowGroups) {
        this(
                rowGroups,
                rowGroups.stream()
                        .flatMap(List::stream)
                        .sorted(Comparator.comparingLong(chunk -> chunk.bytes().start()))
                        .toList(),
                rowGroups.stream()
                        .flatMap(List::stream)
                        .flatMap(chunk -> chunk.pageIndexes().stream().map(index -> new PageIndex(chunk, index)))
                        .sorted(Comparator.comparingLong(index -> index.bytes().start()))
                        .toList(),
                rowGroups.stream().flatMap(List::stream).map(Chunk::path).collect(Collectors.toSet()));
    }

    /** A chunk's column index or offset index: where a reader filtering pages reads. */
    record PageIndex(Chunk chunk, ByteRange bytes) {}

    /** The chunks one of whose page indexes starts in {@code range}. */
    List<Chunk> pageIndexesStartingIn(ByteRange range) {
        return startingIn(pageIndexes, PageIndex::bytes, range).stream()
                .map(PageIndex::chunk)
                .toList();
    }

    /** The chunks whose first byte lies in {@code range}: the chunks a read of {@code range} starts reading. */
    List<Chunk> chunksStartingIn(ByteRange range) {
        return startingIn(byStart, Chunk::bytes, range);
    }

    /**
     * Where the structure holding {@code position} ends: the dictionary page, when the position is in a chunk's
     * dictionary page (a reader filtering row groups by dictionary reads only that); else the chunk; else the page
     * index holding it; {@code Long.MAX_VALUE} elsewhere (the footer, or bytes no chunk claims).
     */
    long structureEnd(long position) {
        Chunk chunk = containing(byStart, Chunk::bytes, position);
        if (chunk != null) {
            return chunk.dictionary()
                    .filter(dictionary -> dictionary.end() > position)
                    .map(ByteRange::end)
                    .orElse(chunk.bytes().end());
        }
        PageIndex index = containing(pageIndexes, PageIndex::bytes, position);
        return index != null ? index.bytes().end() : Long.MAX_VALUE;
    }

    /** The element of {@code sorted} (by where their bytes start) whose bytes hold {@code position}, or null. */
    private static <T> T containing(List<T> sorted, Function<T, ByteRange> bytes, long position) {
        int low = 0;
        int high = sorted.size();
        while (low < high) { // the first one starting after the position
            int middle = (low + high) >>> 1;
            if (bytes.apply(sorted.get(middle)).start() <= position) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        if (low == 0) {
            return null;
        }
        T last = sorted.get(low - 1); // the last one starting at or before it: in a valid file, the only candidate
        return bytes.apply(last).end() > position ? last : null;
    }

    /** The elements of {@code sorted} (by where their bytes start) whose bytes start in {@code range}. */
    private static <T> List<T> startingIn(List<T> sorted, Function<T, ByteRange> bytes, ByteRange range) {
        int low = 0;
        int high = sorted.size();
        while (low < high) { // the first one starting at or after the range's start
            int middle = (low + high) >>> 1;
            if (bytes.apply(sorted.get(middle)).start() < range.start()) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        int end = low;
        while (end < sorted.size() && bytes.apply(sorted.get(end)).start() < range.end()) {
            end++;
        }
        return sorted.subList(low, end);
    }

    /** The footer's bytes are not a Parquet footer. */
    static final class CorruptFooterException extends IOException {
        private static final long serialVersionUID = 1L;

        CorruptFooterException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * One column chunk: its row group, its path (dotted), where its bytes are, where its dictionary page ends (its
     * first data page's offset; -1 without a dictionary page), and where its column index and offset index are
     * (those it has).
     */
    record Chunk(int rowGroup, String path, ByteRange bytes, long dictionaryEnd, List<ByteRange> pageIndexes) {
        Chunk {
            requireNonNull(path, "path is null");
            requireNonNull(bytes, "bytes is null");
            pageIndexes = List.copyOf(pageIndexes);
        }

        /** A chunk without page indexes. */
        Chunk(int rowGroup, String path, ByteRange bytes, long dictionaryEnd) {
            this(rowGroup, path, bytes, dictionaryEnd, List.of());
        }

        /** The dictionary page's bytes, if the chunk has one. */
        Optional<ByteRange> dictionary() {
            return dictionaryEnd > bytes.start() && dictionaryEnd <= bytes.end()
                    ? Optional.of(new ByteRange(bytes.start(), dictionaryEnd))
                    : Optional.empty();
        }
    }

    /** The footer's length, from the file's last 8 bytes; fails on a bad magic or an impossible length. */
    static int footerLength(byte[] trailer, long fileLength) throws CorruptFooterException {
        if (trailer.length != TRAILER_BYTES || !Arrays.equals(trailer, 4, 8, MAGIC, 0, 4)) {
            throw new CorruptFooterException("Not a Parquet file: its last 4 bytes are not PAR1", null);
        }
        int length =
                ByteBuffer.wrap(trailer, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length <= 0 || length > fileLength - TRAILER_BYTES - MAGIC.length) {
            throw new CorruptFooterException(
                    "Corrupt Parquet footer: length " + length + " in a file of " + fileLength + " bytes", null);
        }
        return length;
    }

    // A page index outside the file is only not prefetched: parquet-java reports it, if it reads it.
    private static void addWithin(List<ByteRange> indexes, long offset, int length, long fileLength) {
        if (offset >= 0 && length > 0 && offset + length <= fileLength) {
            indexes.add(ByteRange.ofLength(offset, length));
        }
    }

    /** Decodes the footer's Thrift; fails on bytes that do not decode. */
    static ParquetFooter parse(byte[] footer, long fileLength) throws CorruptFooterException {
        FileMetaData metadata;
        try {
            metadata = Util.readFileMetaData(new ByteArrayInputStream(footer));
        } catch (IOException | RuntimeException e) {
            throw new CorruptFooterException("Corrupt Parquet footer: " + e.getMessage(), e);
        }
        List<List<Chunk>> rowGroups = new ArrayList<>();
        for (RowGroup rowGroup : metadata.getRow_groups()) {
            List<Chunk> chunks = new ArrayList<>();
            for (ColumnChunk column : rowGroup.getColumns()) {
                ColumnMetaData chunk = column.getMeta_data();
                if (chunk == null) {
                    continue; // encrypted or in another file: not ours to prefetch
                }
                long start = chunk.getData_page_offset();
                long dictionaryEnd = -1;
                if (chunk.isSetDictionary_page_offset()
                        && chunk.getDictionary_page_offset() > 0
                        && chunk.getDictionary_page_offset() < start) {
                    dictionaryEnd = start;
                    start = chunk.getDictionary_page_offset();
                }
                long end = start + chunk.getTotal_compressed_size();
                if (start < 0 || end > fileLength || end <= start) {
                    throw new CorruptFooterException(
                            "Corrupt Parquet footer: column " + chunk.getPath_in_schema() + " lies at [" + start + ", "
                                    + end + ") in a file of " + fileLength + " bytes",
                            null);
                }
                List<ByteRange> pageIndexes = new ArrayList<>(2);
                if (column.isSetColumn_index_offset() && column.isSetColumn_index_length()) {
                    addWithin(
                            pageIndexes, column.getColumn_index_offset(), column.getColumn_index_length(), fileLength);
                }
                if (column.isSetOffset_index_offset() && column.isSetOffset_index_length()) {
                    addWithin(
                            pageIndexes, column.getOffset_index_offset(), column.getOffset_index_length(), fileLength);
                }
                chunks.add(new Chunk(
                        rowGroups.size(),
                        String.join(".", chunk.getPath_in_schema()),
                        new ByteRange(start, end),
                        dictionaryEnd,
                        pageIndexes));
            }
            rowGroups.add(chunks);
        }
        return new ParquetFooter(rowGroups);
    }
}
