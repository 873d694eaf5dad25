package io.rangefetch.internal.plan;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.ArrayList;
import java.util.List;

/**
 * What the predictions of a factory's closed streams wasted past their bound ({@link WasteBudget#excess}), by file
 * and by table, so that the next stream of the same file (an engine opens a file more than once: its footer, then
 * its data) or of the same table (read alike by one query's tasks) starts where they left off: backed off after
 * waste, free after none. A file's own record wins over its table's; a stream that wasted nothing clears both.
 *
 * <p>Also whether reading a table's small objects whole pays: each close of a stream of a small object says how
 * much of it the reader read. A file counts with the most any of its streams read (an engine reads a file's footer
 * through one stream and its data through another, both served by the one whole read), and once the table's last
 * {@value #FILES_PER_TABLE} files (at least {@value #FILES_JUDGED}) were read less than {@code 1 / (1 + RATIO)} in
 * all, its next streams read only what
 * they ask for (random reads of a few bytes of many small objects), until its readers read the most of their
 * objects again.
 *
 * <p>Bounded: at most {@value #REMEMBERED} files and as many tables, the least recently used forgotten first.
 * Thread-safe (Caffeine's maps; a table's whole-read record is replaced atomically, never changed in place).
 *
 * <p><b>Public because</b> {@code internal.read.ReadEngine} keeps the factory's, and {@code internal.read.Predictions}
 * reads and adds to it.
 */
public final class WasteMemory {
    static final int REMEMBERED = 10_000;
    /** The files of a table whose reads decide whether its small objects are read whole. */
    static final int FILES_PER_TABLE = 8;
    /** The fewest files of a table that can tell its small objects should not be read whole. */
    static final int FILES_JUDGED = 4;

    private final Cache<FileKey, Long> files = Caffeine.newBuilder()
            .maximumSize(REMEMBERED)
            .executor(Runnable::run)
            .build();
    private final Cache<FileKey, Long> tables = Caffeine.newBuilder()
            .maximumSize(REMEMBERED)
            .executor(Runnable::run)
            .build();
    private final Cache<FileKey, WholeReads> wholeReads = Caffeine.newBuilder()
            .maximumSize(REMEMBERED)
            .executor(Runnable::run)
            .build();

    /** The waste a new stream of {@code key} carries: the file's last excess, else its table's. */
    public long carried(String bucket, String key) {
        Long file = files.getIfPresent(new FileKey(bucket, key));
        if (file != null) {
            return file;
        }
        Long table = tables.getIfPresent(new FileKey(bucket, TableKeys.table(key)));
        return table == null ? 0 : table;
    }

    /** A stream of {@code key} closed with {@code excess} waste past its bound. */
    public void closed(String bucket, String key, long excess) {
        FileKey file = new FileKey(bucket, key);
        FileKey table = new FileKey(bucket, TableKeys.table(key));
        if (excess > 0) {
            files.put(file, excess);
            tables.put(table, excess);
        } else {
            files.invalidate(file);
            tables.invalidate(table);
        }
    }

    /** Whether a new stream of {@code key} may read its object whole if it is small. */
    public boolean readsWhole(String bucket, String key) {
        WholeReads reads = wholeReads.getIfPresent(new FileKey(bucket, TableKeys.table(key)));
        return reads == null || reads.paid();
    }

    /** A stream of a small object of {@code length} bytes closed, its reader having read {@code read} of them. */
    public void smallObjectClosed(String bucket, String key, long length, long read) {
        requireNonNull(key, "key is null");
        if (length <= 0) {
            return;
        }
        wholeReads
                .asMap()
                .compute(
                        new FileKey(bucket, TableKeys.table(key)),
                        (table, reads) -> (reads == null ? WholeReads.NONE : reads)
                                .closed(key, length, Math.max(0, Math.min(read, length))));
    }

    /** A file (bucket and key) or a table (bucket and table). */
    private record FileKey(String bucket, String key) {
        FileKey {
            requireNonNull(bucket, "bucket is null");
            requireNonNull(key, "key is null");
        }
    }

    /** A table's last files of small objects: each file's length and the most one of its streams read of it. */
    private record WholeReads(List<FileRead> files) {
        static final WholeReads NONE = new WholeReads(List.of());

        WholeReads closed(String key, long length, long read) {
            List<FileRead> next = new ArrayList<>(files.size() + 1);
            long most = read;
            for (FileRead file : files) {
                if (file.key().equals(key)) {
                    most = Math.max(most, file.read());
                } else {
                    next.add(file);
                }
            }
            next.add(new FileRead(key, length, most));
            return new WholeReads(List.copyOf(next.subList(Math.max(0, next.size() - FILES_PER_TABLE), next.size())));
        }

        boolean paid() {
            if (files.size() < FILES_JUDGED) {
                return true; // a few files are not yet a table's habit
            }
            double length = files.stream().mapToLong(FileRead::length).sum();
            double read = files.stream().mapToLong(FileRead::read).sum();
            return read * (1 + WasteBudget.RATIO) >= length;
        }
    }

    private record FileRead(String key, long length, long read) {}
}
