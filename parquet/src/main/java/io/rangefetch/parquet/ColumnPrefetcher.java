package io.rangefetch.parquet;

import static java.util.Objects.requireNonNull;

import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.client.ByteRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prefetches the column chunks a reader of one Parquet file is about to ask for. parquet-java reads a row group's
 * projected chunks in one vectored read, decodes them, then asks for the next row group's: one round trip per row
 * group, with the network idle while it decodes. Seeing which columns a vectored read covered, this starts
 * fetching the same columns of the row groups that follow, as far ahead as {@code budget} bytes, so the next
 * vectored read finds its bytes cached or in flight.
 *
 * <p>The footer is parsed once, from the cached tail. A footer that does not parse turns prefetching off for the
 * file, with one warning; reads go on unchanged (parquet-java reports a truly corrupt file itself).
 *
 * <p>Thread-safe: one per file, shared by its streams.
 */
final class ColumnPrefetcher {
    private static final Logger LOG = LoggerFactory.getLogger(ColumnPrefetcher.class);

    private final String file;
    private final long budget;
    private final ColumnHistory history;
    // Guarded by this.
    private ParquetFooter footer;
    private boolean disabled;
    private boolean opened;
    private boolean recorded;

    ColumnPrefetcher(String file, long budget, ColumnHistory history) {
        this.file = requireNonNull(file, "file is null");
        this.budget = budget;
        this.history = requireNonNull(history, "history is null");
    }

    /**
     * When the file's first stream opens: if readers of its schema are known to read some columns, starts
     * fetching those columns of the first row group at once. Never fails the open.
     */
    void onOpen(SeekableS3InputStream stream) {
        try {
            List<ByteRange> predicted = predictedChunks(stream);
            if (!predicted.isEmpty()) {
                stream.prefetch(predicted);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("No predicted column prefetch for {}", file, e);
        }
    }

    private List<ByteRange> predictedChunks(SeekableS3InputStream stream) throws IOException {
        synchronized (this) {
            if (opened || budget <= 0) {
                return List.of();
            }
            opened = true;
        }
        ParquetFooter parsed = footer(stream);
        if (parsed == null || parsed.rowGroups().isEmpty()) {
            return List.of();
        }
        Set<String> columns = history.predicted(parsed.schema());
        List<ByteRange> chunks = parsed.rowGroups().get(0).stream().filter(chunk -> columns.contains(chunk.path()))
                .map(ParquetFooter.Chunk::bytes).toList();
        long bytes = chunks.stream().mapToLong(ByteRange::length).sum();
        return bytes <= budget ? chunks : List.of();
    }

    /**
     * After a vectored read of {@code read}: prefetches the same columns of the row groups after the last one.
     * Never fails the read: a prefetch that cannot be planned is skipped.
     */
    void afterVectoredRead(SeekableS3InputStream stream, List<ByteRange> read) {
        try {
            prefetchAfter(stream, read);
        } catch (IOException | RuntimeException e) {
            LOG.debug("No column prefetch for {} this time", file, e);
        }
    }

    private void prefetchAfter(SeekableS3InputStream stream, List<ByteRange> read) throws IOException {
        if (budget <= 0) {
            return;
        }
        ParquetFooter parsed = footer(stream);
        if (parsed == null) {
            return;
        }
        Set<String> columns = new HashSet<>();
        int lastRowGroup = -1;
        long readStart = read.stream().mapToLong(ByteRange::start).min().orElse(0);
        long readEnd = read.stream().mapToLong(ByteRange::end).max().orElse(0);
        for (int rowGroup = 0; rowGroup < parsed.rowGroups().size(); rowGroup++) {
            ByteRange span = parsed.spans().get(rowGroup);
            if (span == null || span.end() <= readStart || span.start() >= readEnd) {
                continue; // wide files have many row groups: only those the read touches are looked into
            }
            for (ParquetFooter.Chunk chunk : parsed.rowGroups().get(rowGroup)) {
                if (read.stream().anyMatch(range -> range.start() <= chunk.bytes().start()
                        && chunk.bytes().end() <= range.end())) {
                    columns.add(chunk.path());
                    lastRowGroup = rowGroup;
                }
            }
        }
        recordOnce(parsed, columns);
        List<ByteRange> ahead = new ArrayList<>();
        long bytes = 0;
        for (int rowGroup = lastRowGroup + 1; rowGroup < parsed.rowGroups().size() && !columns.isEmpty(); rowGroup++) {
            List<ByteRange> chunks = parsed.rowGroups().get(rowGroup).stream()
                    .filter(chunk -> columns.contains(chunk.path())).map(ParquetFooter.Chunk::bytes).toList();
            long size = chunks.stream().mapToLong(ByteRange::length).sum();
            if (bytes + size > budget) {
                break;
            }
            ahead.addAll(chunks);
            bytes += size;
        }
        if (!ahead.isEmpty()) {
            stream.prefetch(ahead);
        }
    }

    /** The columns this file's reader reads, learned from its first vectored read, go into the history. */
    private void recordOnce(ParquetFooter parsed, Set<String> columns) {
        synchronized (this) {
            if (recorded || columns.isEmpty()) {
                return;
            }
            recorded = true;
        }
        history.record(parsed.schema(), columns);
    }

    private synchronized ParquetFooter footer(SeekableS3InputStream stream) throws IOException {
        if (footer != null || disabled) {
            return footer;
        }
        long length = stream.length();
        byte[] trailer = new byte[ParquetFooter.TRAILER_BYTES];
        try {
            if (length < ParquetFooter.TRAILER_BYTES) {
                throw new ParquetFooter.CorruptFooterException("Not a Parquet file: " + length + " bytes", null);
            }
            stream.readFully(length - trailer.length, trailer, 0, trailer.length);
            int footerLength = ParquetFooter.footerLength(trailer, length);
            byte[] bytes = new byte[footerLength];
            stream.readFully(length - trailer.length - footerLength, bytes, 0, footerLength);
            footer = ParquetFooter.parse(bytes, length);
        } catch (ParquetFooter.CorruptFooterException e) {
            disabled = true;
            LOG.warn("Column prefetch is off for {}: {}", file, e.getMessage());
        }
        return footer;
    }
}
