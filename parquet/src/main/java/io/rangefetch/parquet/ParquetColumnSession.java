package io.rangefetch.parquet;

import static java.util.Objects.requireNonNull;

import io.rangefetch.StreamConfig;
import io.rangefetch.client.ByteRange;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import io.rangefetch.parquet.ColumnPrefetchPlan.Planned;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Column prefetch on one stream of a Parquet file. A Parquet reader reads a row group's projected column chunks,
 * decodes them, then asks for the next row group's: one round trip per row group (or per chunk, for readers that
 * read chunk by chunk), with the network idle while it decodes. So when a read starts a column chunk, this
 * prefetches, as one coalesced plan:
 * <ul>
 *   <li>the other chunks of that row group this reader is predicted to read: the columns it has read so far,
 *       and those readers of the same schema read in earlier files (see {@link ColumnHistory});</li>
 *   <li>the chunks of the columns it has read so far in the row groups that follow, as far ahead as
 *       {@code min(prefetch.max-size, cache.max-memory / 4)} bytes allow. A column only the history predicts is
 *       fetched ahead once this reader reads it, and predicted no more once the reader leaves the first row group
 *       it read without reading it: so a history wrong for this reader wastes at most one row group's chunks of
 *       the columns it does not read, however large the budget.</li>
 * </ul>
 * A read of only a chunk's dictionary page (a reader filtering row groups by dictionary) prefetches only that
 * column's dictionary pages, of that row group and the ones after it; a read of a page index, the predicted
 * chunks' page indexes. A streaming read's sequential prefetch never passes the end of the structure it is in
 * (the dictionary page, the chunk, the page index: {@link #structureEnd}). When the file's footer is parsed and its schema is
 * known to the history, the predicted chunks of the first row group are prefetched at once, before the reader
 * asks. Nothing on the reader's thread waits for the footer: reads made before it is parsed are looked at once
 * it is (the first {@value #MAX_WAITING_READS} of them), on the thread that parsed it.
 *
 * <p><b>Its waste is counted.</b> A prediction that is wrong costs bytes, never correctness, and those bytes count
 * against the stream's waste bound like the sequential ramp's ({@link FormatStream#predictionWasted}): what this
 * session asked to prefetch and no read has touched is pending, and is wasted when the reader starts a later row
 * group (a reader that skips row groups by their statistics or dictionaries leaves theirs behind) or closes. Row
 * groups after the one being read are prefetched only while the stream's bound allows predictions ({@link
 * FormatStream#predictionsAllowed}, which also holds what the file's or table's streams before wasted), and only as
 * far as a window of twice the prefetched bytes the reader has used since it last left some behind (at least {@code
 * prefetch.initial-size}, and always the next row group), as the sequential ramp's window grows with what is read.
 * So a reader that skips wastes about one window before the session stops reading ahead for it, and a scan that
 * reads every row group has them ahead of it as before. A range counts as fetched for the reader when the session asks for
 * it, cached already or not: the count errs toward backing off.
 *
 * <p>Thread-safe. Locks: {@code inOrder} (reads looked at one at a time, in the order they came), then this (the
 * session's own fields, held only for arithmetic); prefetches are handed to the stream, which queues them and never
 * waits for them, under {@code inOrder} only.
 */
final class ParquetColumnSession implements FormatSession {
    /** Reads remembered while the footer is parsed: the first ones tell which columns are read. */
    static final int MAX_WAITING_READS = 64;

    private final FormatStream stream;
    private final ParquetFormatPolicy policy;
    private final long budget;
    // Columns this stream's reader started reading, in order; guarded by this.
    private final Set<String> columnsRead = new LinkedHashSet<>();
    // The row group of the first chunk this stream's reader started, -1 before; guarded by this.
    private int firstRowGroup = -1;
    // The parsed footer, or null when the file has none worth using (or the stream closed first).
    private final CompletableFuture<ParquetFooter> footer = new CompletableFuture<>();
    // Reads made before the footer was parsed, in the order they came (the first MAX_WAITING_READS); guarded by
    // this. Looked at in that order: the first row group the reader started is the one the history may predict.
    private final List<List<ByteRange>> waitingReads = new ArrayList<>();
    // Held while reads are looked at once the footer is parsed, so they are looked at in the order they came: a
    // read that comes while the waiting ones are looked at waits for them. Taken before this, never after.
    private final Object inOrder = new Object();
    private volatile boolean closed;
    // What this session asked to prefetch that no read has touched yet, with its row group; guarded by this.
    private final Map<ByteRange, Integer> pending = new LinkedHashMap<>();
    // Bytes of this session's prefetches that reads used since one was last left behind; guarded by this. The
    // window past the row group being read is twice that (at least prefetch.initial-size, at most the budget).
    private long usedSinceLeftBehind;

    ParquetColumnSession(FormatStream stream, ParquetFormatPolicy policy) {
        this.stream = requireNonNull(stream, "stream is null");
        this.policy = requireNonNull(policy, "policy is null");
        // as far ahead as a sequential prefetch may go, and never more than a quarter of the shared cache
        this.budget =
                Math.min(stream.get(StreamConfig.PREFETCH_MAX_SIZE), stream.get(StreamConfig.CACHE_MAX_MEMORY) / 4);
    }

    /** How far past the row group being read a prefetch may reach now. Called holding this. */
    private long laterWindow() {
        long earned = usedSinceLeftBehind > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * usedSinceLeftBehind;
        return Math.min(budget, Math.max(stream.get(StreamConfig.PREFETCH_INITIAL_SIZE), earned));
    }

    @Override
    public long openTailSize() {
        return policy.precacheSize(stream);
    }

    /**
     * A file over {@code parquet.whole-file-size} is read footer first, then by column chunk: its reader reads
     * the columns it projects, and this session prefetches those, so reading it whole would fetch every other
     * column too.
     */
    @Override
    public OptionalLong smallObjectSize() {
        return OptionalLong.of(stream.get(ParquetFormatPolicy.WHOLE_FILE_SIZE));
    }

    @Override
    public void opened() {
        footer.thenAccept(this::prefetchPredictedFirstRowGroup);
        policy.footer(stream).whenComplete((parsed, failure) -> footer.complete(failure == null ? parsed : null));
    }

    private void prefetchPredictedFirstRowGroup(ParquetFooter parsed) {
        if (parsed == null || closed || budget <= 0 || parsed.rowGroups().isEmpty() || !stream.predictionsAllowed()) {
            return;
        }
        Set<String> predicted = policy.history().predicted(parsed.schema());
        List<Planned> chunks = ColumnPrefetchPlan.chunksOf(parsed.rowGroups().get(0), predicted)
                .map(chunk -> new Planned(0, chunk.bytes()))
                .toList();
        if (!chunks.isEmpty()
                && chunks.stream()
                                .mapToLong(planned -> planned.range().length())
                                .sum()
                        <= budget) {
            prefetch(chunks, List.of());
        }
    }

    /**
     * Prefetches {@code planned}; what {@code read} (the reader's read that led to it, if any) touches is being read
     * already, so only the rest is pending.
     */
    private void prefetch(List<Planned> planned, List<ByteRange> read) {
        synchronized (this) {
            for (Planned each : planned) {
                if (!touches(read, each.range())) {
                    pending.putIfAbsent(each.range(), each.rowGroup());
                }
            }
        }
        stream.prefetch(planned.stream().map(Planned::range).toList());
    }

    /**
     * The end of the column chunk (or of its dictionary page, or of the page index) a streaming read at
     * {@code position} is in: Spark's and parquet-java's readers read each page header byte by byte, then its
     * dictionary page, for every row group before they read any data, and without this bound those reads in a
     * row ramp a sequential prefetch over every column of the file. Chunks the reader goes on to read are this
     * session's to prefetch, by column. Before the footer is parsed nothing ahead is worth a ramp (a Parquet reader
     * reads the footer first, then the structures it names, and may well be at them before the parse is done);
     * a file whose footer is not one is unbounded, read as any file.
     */
    @Override
    public long structureEnd(long position) {
        if (!footer.isDone()) {
            return position + 1;
        }
        ParquetFooter parsed = footer.getNow(null);
        return parsed == null ? Long.MAX_VALUE : parsed.structureEnd(position);
    }

    @Override
    public void afterRead(long position, long length) {
        if (length > 0) {
            onRead(List.of(ByteRange.ofLength(position, length)));
        }
    }

    @Override
    public void afterVectoredRead(List<ByteRange> ranges) {
        onRead(ranges);
    }

    private void onRead(List<ByteRange> ranges) {
        if (footer.isDone()) {
            ParquetFooter parsed = footer.join();
            synchronized (inOrder) {
                lookAtWaitingReads(parsed); // older reads first, if no drain has taken them yet
                onRead(parsed, ranges);
            }
        } else {
            boolean first;
            synchronized (this) {
                if (waitingReads.size() >= MAX_WAITING_READS) {
                    return;
                }
                first = waitingReads.isEmpty();
                waitingReads.add(ranges);
            }
            if (first) {
                // one look for every read waiting, oldest first (one dependent per read would run in no promised
                // order); a read added after it took them finds the list empty and asks for a look of its own
                footer.thenAccept(this::lookAtWaitingReads);
            }
        }
    }

    private void lookAtWaitingReads(ParquetFooter parsed) {
        synchronized (inOrder) {
            List<List<ByteRange>> waiting;
            synchronized (this) {
                waiting = List.copyOf(waitingReads);
                waitingReads.clear();
            }
            waiting.forEach(ranges -> onRead(parsed, ranges));
        }
    }

    private void onRead(ParquetFooter parsed, List<ByteRange> ranges) {
        if (parsed == null || closed) {
            return;
        }
        List<ParquetFooter.Chunk> started = ColumnPrefetchPlan.startedChunks(parsed, ranges);
        int rowGroup =
                started.stream().mapToInt(ParquetFooter.Chunk::rowGroup).max().orElse(-1);
        Set<String> confirmed;
        boolean historyHolds;
        long wasted;
        long window;
        synchronized (this) {
            wasted = settle(ranges, rowGroup);
            if (rowGroup >= 0) {
                started.forEach(chunk -> columnsRead.add(chunk.path()));
                if (firstRowGroup < 0) {
                    firstRowGroup = rowGroup;
                }
            }
            confirmed = Set.copyOf(columnsRead);
            // a reader that left its first row group without reading a column the history predicts will not
            historyHolds = rowGroup == firstRowGroup;
            window = laterWindow();
        }
        if (wasted > 0) {
            stream.predictionWasted(wasted);
        }
        if (rowGroup < 0) {
            return; // the footer, or the middle of a chunk: nothing new is known
        }
        Set<String> predicted = new LinkedHashSet<>(confirmed);
        if (historyHolds) {
            predicted.addAll(policy.history().predicted(parsed.schema()));
        }
        List<Planned> ahead = ColumnPrefetchPlan.ahead(
                parsed, ranges, confirmed, predicted, budget, stream.predictionsAllowed() ? window : 0);
        if (!ahead.isEmpty()) {
            prefetch(ahead, ranges);
        }
    }

    /**
     * Settles what was pending against a read of {@code ranges} that starts chunks of {@code rowGroup} (-1: none):
     * what the read touches was used; what belongs to an earlier row group than the one it starts was left behind.
     * The window earns what was used, and starts over when something was left behind. Returns the bytes left behind.
     * Called holding this.
     */
    private long settle(List<ByteRange> ranges, int rowGroup) {
        long wasted = 0;
        long used = 0;
        for (Iterator<Map.Entry<ByteRange, Integer>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<ByteRange, Integer> entry = it.next();
            if (touches(ranges, entry.getKey())) {
                used += entry.getKey().length();
                it.remove();
            } else if (entry.getValue() < rowGroup) {
                wasted += entry.getKey().length();
                it.remove();
            }
        }
        usedSinceLeftBehind = wasted > 0 ? 0 : usedSinceLeftBehind + used;
        return wasted;
    }

    private static boolean touches(List<ByteRange> ranges, ByteRange range) {
        return ranges.stream().anyMatch(read -> read.overlaps(range.start(), range.end()));
    }

    /**
     * The columns this stream's reader read go into the history, for the next file of the schema; what is still
     * pending was prefetched for nothing.
     */
    @Override
    public void close() {
        closed = true;
        footer.complete(null); // a footer still being parsed is of no use to this stream any more
        ParquetFooter parsed = footer.join();
        Set<String> read;
        long leftBehind;
        synchronized (this) {
            read = Set.copyOf(columnsRead);
            leftBehind = pending.keySet().stream().mapToLong(ByteRange::length).sum();
            pending.clear();
        }
        if (leftBehind > 0) {
            stream.predictionWasted(leftBehind);
        }
        if (parsed != null && !read.isEmpty()) {
            policy.history().record(parsed.schema(), read);
        }
    }
}
