package io.rangefetch.parquet;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * What a Parquet reader's reads predict it reads next, decided from the footer alone: which column chunks, dictionary
 * pages or page indexes to prefetch, of the row group being read and the ones after it, within a byte budget.
 *
 * <p>Pure: no I/O, no clock, no state; {@link ParquetColumnSession} keeps what a stream has read and prefetched and
 * asks here what follows from it. Kept apart so that the rules can be read, and tested, without a stream.
 */
final class ColumnPrefetchPlan {
    private ColumnPrefetchPlan() {}

    /** A range to prefetch, with the row group it belongs to. */
    record Planned(int rowGroup, ByteRange range) {}

    /** The chunks whose reading {@code ranges} start: their bytes, or one of their page indexes. */
    static List<ParquetFooter.Chunk> startedChunks(ParquetFooter parsed, List<ByteRange> ranges) {
        List<ParquetFooter.Chunk> started = new ArrayList<>();
        ranges.forEach(range -> {
            started.addAll(parsed.chunksStartingIn(range));
            started.addAll(parsed.pageIndexesStartingIn(range));
        });
        return started;
    }

    /**
     * What to prefetch after reads of {@code ranges}, for a reader predicted to read {@code columns}: the page
     * indexes of those columns in the row group and the ones after it, if the reads start page indexes and no
     * chunk (a reader filtering pages); nothing if they start neither; the dictionary pages of the chunks started in
     * the row group and the ones after it, if every chunk started was read for its dictionary page only; else
     * their chunks of the latest row group started and of the ones after it. Always as far as {@code budget}
     * bytes go, by whole row groups.
     *
     * <p>A reader that filters by dictionary or by page index (Spark's and parquet-java's, with a filter) reads
     * those structures of every row group before it reads any data: one row group at a time, each a round trip,
     * unless the later ones are already on their way.
     */
    static List<ByteRange> ahead(ParquetFooter parsed, List<ByteRange> ranges, Set<String> columns, long budget) {
        return ahead(parsed, ranges, columns, columns, budget);
    }

    /** As the six-argument form, with no window on the row groups after the one read now. */
    static List<ByteRange> ahead(
            ParquetFooter parsed, List<ByteRange> ranges, Set<String> confirmed, Set<String> predicted, long budget) {
        return ahead(parsed, ranges, confirmed, predicted, budget, Long.MAX_VALUE).stream()
                .map(Planned::range)
                .toList();
    }

    /**
     * As {@link #ahead(ParquetFooter, List, Set, long)}, where the chunks of the row group read now are those of
     * the {@code predicted} columns (what this reader read, and what readers of the schema read before), and the
     * chunks of the row groups after it only those of the {@code confirmed} ones (what this reader read): a
     * history that is wrong for this reader costs one row group's chunks of the columns it does not read, not a
     * budget's worth. A column the reader goes on to read is confirmed then, and prefetched ahead from its next read.
     * Of the row groups after the one read now, the next is taken whenever {@code laterWindow} is positive, and the
     * ones after it while their bytes stay within it.
     */
    static List<Planned> ahead(
            ParquetFooter parsed,
            List<ByteRange> ranges,
            Set<String> confirmed,
            Set<String> predicted,
            long budget,
            long laterWindow) {
        boolean dictionariesOnly = true;
        int rowGroup = -1;
        Set<String> filtering = new LinkedHashSet<>();
        for (ByteRange range : ranges) {
            for (ParquetFooter.Chunk chunk : parsed.chunksStartingIn(range)) {
                rowGroup = Math.max(rowGroup, chunk.rowGroup());
                dictionariesOnly &= chunk.dictionary().isPresent()
                        && range.start() == chunk.bytes().start()
                        && range.end() <= chunk.dictionaryEnd();
                filtering.add(chunk.path());
            }
        }
        if (rowGroup < 0) {
            int indexed = -1;
            for (ByteRange range : ranges) {
                for (ParquetFooter.Chunk chunk : parsed.pageIndexesStartingIn(range)) {
                    indexed = Math.max(indexed, chunk.rowGroup());
                }
            }
            return indexed < 0
                    ? List.of()
                    : ahead(
                            parsed,
                            indexed,
                            budget,
                            laterWindow,
                            group -> chunksOf(group, predicted)
                                    .flatMap(chunk -> chunk.pageIndexes().stream())
                                    .toList());
        }
        // A dictionary filter reads the dictionaries of the filter's columns only; the other columns' come with
        // their chunks, so prefetching them apart would cut each of those chunks into two GETs (or three, when
        // their dictionaries sit apart) and move the data pages between them twice.
        int current = rowGroup;
        return ahead(
                parsed,
                rowGroup,
                budget,
                laterWindow,
                dictionariesOnly
                        ? group -> dictionariesOf(group, filtering)
                        : group -> chunksOf(group, isRowGroup(group, current) ? predicted : confirmed)
                                .map(ParquetFooter.Chunk::bytes)
                                .toList());
    }

    private static boolean isRowGroup(List<ParquetFooter.Chunk> group, int rowGroup) {
        return !group.isEmpty() && group.get(0).rowGroup() == rowGroup;
    }

    /** The chunks of {@code columns} in one row group. */
    static Stream<ParquetFooter.Chunk> chunksOf(List<ParquetFooter.Chunk> rowGroup, Set<String> columns) {
        return rowGroup.stream().filter(chunk -> columns.contains(chunk.path()));
    }

    /** The dictionary pages of {@code columns} in one row group. */
    private static List<ByteRange> dictionariesOf(List<ParquetFooter.Chunk> rowGroup, Set<String> columns) {
        return chunksOf(rowGroup, columns)
                .flatMap(chunk -> chunk.dictionary().stream())
                .toList();
    }

    /**
     * What {@code ofRowGroup} picks of {@code rowGroup} and of the row groups after it, within {@code budget}: of
     * the later ones, the next whenever {@code laterWindow} is positive, the others within it.
     */
    private static List<Planned> ahead(
            ParquetFooter parsed,
            int rowGroup,
            long budget,
            long laterWindow,
            Function<List<ParquetFooter.Chunk>, List<ByteRange>> ofRowGroup) {
        List<Planned> ahead = new ArrayList<>();
        long bytes = 0;
        long later = 0;
        for (int next = rowGroup; next < parsed.rowGroups().size(); next++) {
            List<ByteRange> chunks = ofRowGroup.apply(parsed.rowGroups().get(next));
            long size = chunks.stream().mapToLong(ByteRange::length).sum();
            if (bytes + size > budget) {
                break;
            }
            if (next > rowGroup) {
                if (laterWindow <= 0 || next > rowGroup + 1 && later + size > laterWindow) {
                    break;
                }
                later += size;
            }
            for (ByteRange chunk : chunks) {
                ahead.add(new Planned(next, chunk));
            }
            bytes += size;
        }
        return ahead;
    }
}
