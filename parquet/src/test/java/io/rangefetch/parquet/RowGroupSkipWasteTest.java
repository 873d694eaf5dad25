package io.rangefetch.parquet;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.apache.parquet.filter2.predicate.FilterApi.gtEq;
import static org.apache.parquet.filter2.predicate.FilterApi.longColumn;
import static org.apache.parquet.filter2.predicate.FilterApi.lt;
import static org.apache.parquet.filter2.predicate.FilterApi.or;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ByteRange;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The column prefetch answers for its waste: a reader that skips row groups by their statistics (a filter on a
 * sorted column), or stops after the first, must not have the row groups it leaves behind fetched a whole budget at a
 * time. Real parquet-java with a record filter; files of one table, one factory; the bound is the waste bound every
 * prediction keeps: 1.5 times the bytes the reader needs, plus one initial window and the one row group a window
 * always takes.
 */
class RowGroupSkipWasteTest {
    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType("message row { required int64 id; required binary payload (UTF8); }");
    private static final int ROWS = 80_000;
    private static final int ROW_GROUPS = 8;
    private static final int ROWS_PER_GROUP = ROWS / ROW_GROUPS;
    private static final long INITIAL_WINDOW = 256 * 1024;
    /** What the footer's precache reaches back into the last row group, beyond the footer itself. */
    private static final long TAIL_SLACK = 64 * 1024;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @TempDir
    Path directory;

    @Test
    void aReaderThatSkipsTheMiddleRowGroupsLeavesAtMostOneBehindPerFile() throws IOException {
        // the statistics keep the first and the last row group of each file
        FilterPredicate firstAndLast =
                or(lt(longColumn("id"), (long) ROWS_PER_GROUP), gtEq(longColumn("id"), (long) (ROWS - ROWS_PER_GROUP)));
        List<Path> files = writeTable(3);
        StreamFactory factory = factory();
        for (int i = 0; i < files.size(); i++) {
            assertThat(read(factory, files.get(i), key(i), firstAndLast)).isEqualTo(2L * ROWS_PER_GROUP);
        }
        fixture.awaitQuiet();

        for (int i = 0; i < files.size(); i++) {
            long needed = rowGroupBytes(files.get(i), 0)
                    + rowGroupBytes(files.get(i), ROW_GROUPS - 1)
                    + tailBytes(files.get(i));
            long bound = (long) (1.5 * needed) + INITIAL_WINDOW + TAIL_SLACK;
            assertThat(fetched(key(i)))
                    .as("bytes fetched of %s, which needs %,d of %,d", key(i), needed, Files.size(files.get(i)))
                    .isLessThanOrEqualTo(bound);
        }
    }

    @Test
    void readersThatStopAfterTheFirstRowGroupKeepTheTableWithinTheBound() throws IOException {
        FilterPredicate firstOnly = lt(longColumn("id"), (long) ROWS_PER_GROUP);
        List<Path> files = writeTable(6);
        StreamFactory factory = factory();
        long needed = 0;
        for (int i = 0; i < files.size(); i++) {
            assertThat(read(factory, files.get(i), key(i), firstOnly)).isEqualTo(ROWS_PER_GROUP);
            needed += rowGroupBytes(files.get(i), 0) + tailBytes(files.get(i));
        }
        fixture.awaitQuiet();

        long fetched = 0;
        for (int i = 0; i < files.size(); i++) {
            fetched += fetched(key(i));
        }
        // what the table's streams wasted carries from one to the next: the table as a whole keeps the bound, with
        // the one row group a stream's window took before the carried waste held it back
        long bound =
                (long) (1.5 * needed) + INITIAL_WINDOW + rowGroupBytes(files.get(0), 1) + files.size() * TAIL_SLACK;
        assertThat(fetched)
                .as("bytes fetched of the table, which needs %,d", needed)
                .isLessThanOrEqualTo(bound);
    }

    private StreamFactory factory() {
        return fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * StreamFixture.MIB)
                .set(SMALL_OBJECT_SIZE, 0)
                .set(PREFETCH_INITIAL_SIZE, INITIAL_WINDOW)
                .build());
    }

    private List<Path> writeTable(int count) throws IOException {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Path path = directory.resolve("part-" + i + ".parquet");
            int file = i;
            ParquetTestFiles.write(
                    path,
                    SCHEMA,
                    ROWS,
                    ROWS_PER_GROUP,
                    (groups, row) -> groups.newGroup()
                            .append("id", (long) row)
                            .append("payload", "payload-" + file + "-" + row + "-" + "x".repeat(80)));
            fixture.client().put(StreamFixture.BUCKET, key(i), Files.readAllBytes(path));
            files.add(path);
        }
        return files;
    }

    private static String key(int file) {
        return "table/part-" + file + ".parquet";
    }

    private static long read(StreamFactory factory, Path local, String key, FilterPredicate filter) throws IOException {
        return ParquetTestFiles.readRowGroups(
                factory,
                local,
                key,
                ParquetReadOptions.builder(new PlainParquetConfiguration())
                        .withRecordFilter(FilterCompat.get(filter))
                        .build(),
                null);
    }

    /** The bytes every GET of {@code key} asked for. */
    private long fetched(String key) {
        long bytes = 0;
        for (Request get : fixture.client().gets()) {
            if (get.key().equals(key)) {
                bytes += get.byteRange().length();
            }
        }
        return bytes;
    }

    private static long rowGroupBytes(Path file, int rowGroup) throws IOException {
        long bytes = 0;
        for (String column : List.of("id", "payload")) {
            List<ByteRange> chunks = ParquetTestFiles.chunks(file, column);
            assertThat(chunks).hasSize(ROW_GROUPS);
            bytes += chunks.get(rowGroup).length();
        }
        return bytes;
    }

    /** The page indexes and the footer: everything after the last row group. */
    private static long tailBytes(Path file) throws IOException {
        long end = 0;
        for (String column : List.of("id", "payload")) {
            for (ByteRange chunk : ParquetTestFiles.chunks(file, column)) {
                end = Math.max(end, chunk.end());
            }
        }
        return Files.size(file) - end;
    }
}
