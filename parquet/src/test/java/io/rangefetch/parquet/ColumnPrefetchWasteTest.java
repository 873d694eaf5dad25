package io.rangefetch.parquet;

import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.Setting;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.ByteRange;
import io.rangefetch.format.FormatPolicy.FormatStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the column session counts as left behind, read by read, on a real parquet-java file whose footer it parses
 * from a stream that answers at once: nothing for a reader that reads every row group (the chunks a read is reading
 * are used, not pending), the next row group's chunks for a reader that skips or stops, and nothing ahead while the
 * stream's waste bound holds predictions back.
 */
class ColumnPrefetchWasteTest {
    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType("message row { required int64 id; required binary payload (UTF8); }");
    private static final int ROWS = 40_000;
    private static final int ROW_GROUPS = 8;
    /** Smaller than a row group's chunks: a window takes the next row group and no more. */
    private static final long INITIAL_WINDOW = 64 * 1024;

    @TempDir
    Path directory;

    private byte[] file;
    private List<List<ByteRange>> rowGroups;

    @BeforeEach
    void writeFile() throws IOException {
        Path path = directory.resolve("part-0.parquet");
        ParquetTestFiles.write(
                path,
                SCHEMA,
                ROWS,
                ROWS / ROW_GROUPS,
                (groups, row) -> groups.newGroup()
                        .append("id", (long) row)
                        .append("payload", "payload-" + row + "-" + "x".repeat(40)));
        file = Files.readAllBytes(path);
        List<ByteRange> ids = ParquetTestFiles.chunks(path, "id");
        List<ByteRange> payloads = ParquetTestFiles.chunks(path, "payload");
        rowGroups = new ArrayList<>();
        for (int i = 0; i < ROW_GROUPS; i++) {
            rowGroups.add(List.of(ids.get(i), payloads.get(i)));
        }
        assertThat(bytes(rowGroups.get(1))).as("a row group's chunks").isGreaterThan(INITIAL_WINDOW);
    }

    @Test
    void aReaderOfEveryRowGroupLeavesNothingBehindAndFindsTheNextPrefetchedAtEachStep() {
        LocalStream stream = new LocalStream(true);
        ParquetColumnSession session = open(stream);
        for (int i = 0; i < ROW_GROUPS; i++) {
            stream.prefetched.clear();
            session.afterVectoredRead(rowGroups.get(i));
            if (i + 1 < ROW_GROUPS) {
                assertThat(stream.prefetched)
                        .as("prefetched after reading row group %d", i)
                        .containsAll(rowGroups.get(i + 1));
            }
        }
        session.close();
        assertThat(stream.wasted).isZero();
    }

    @Test
    void aReaderThatSkipsLeavesTheNextRowGroupBehindAndOneThatStopsTheSame() {
        LocalStream skipping = new LocalStream(true);
        ParquetColumnSession session = open(skipping);
        session.afterVectoredRead(rowGroups.get(0));
        session.afterVectoredRead(rowGroups.get(ROW_GROUPS - 1));
        assertThat(skipping.wasted)
                .as("left behind on reaching the last row group")
                .isEqualTo(bytes(rowGroups.get(1)));
        session.close();
        assertThat(skipping.wasted).isEqualTo(bytes(rowGroups.get(1)));

        LocalStream stopping = new LocalStream(true);
        ParquetColumnSession stopped = open(stopping);
        stopped.afterVectoredRead(rowGroups.get(0));
        assertThat(stopping.wasted).isZero();
        stopped.close();
        assertThat(stopping.wasted).as("pending at close").isEqualTo(bytes(rowGroups.get(1)));
    }

    @Test
    void whileTheBoundHoldsPredictionsBackOnlyTheRowGroupBeingReadIsPrefetched() {
        LocalStream stream = new LocalStream(false);
        ParquetColumnSession session = open(stream);
        session.afterVectoredRead(rowGroups.get(0));
        assertThat(stream.prefetched)
                .as("nothing of the row groups after it")
                .containsExactlyInAnyOrderElementsOf(rowGroups.get(0));
        session.close();
        assertThat(stream.wasted).isZero();
    }

    private ParquetColumnSession open(LocalStream stream) {
        ParquetColumnSession session = new ParquetColumnSession(stream, new ParquetFormatPolicy());
        session.opened();
        stream.prefetched.clear(); // the history knows no column yet: nothing, but be sure
        return session;
    }

    private static long bytes(List<ByteRange> ranges) {
        return ranges.stream().mapToLong(ByteRange::length).sum();
    }

    /** A stream of the written file that answers every read at once, and records what the session asks of it. */
    private final class LocalStream implements FormatStream {
        private final boolean predictionsAllowed;
        final List<ByteRange> prefetched = new ArrayList<>();
        long wasted;

        LocalStream(boolean predictionsAllowed) {
            this.predictionsAllowed = predictionsAllowed;
        }

        @Override
        public String bucket() {
            return "bucket";
        }

        @Override
        public String key() {
            return "table/part-0.parquet";
        }

        @Override
        public String table() {
            return "table";
        }

        @Override
        public OptionalLong splitEnd() {
            return OptionalLong.empty();
        }

        @Override
        public <T> T get(Setting<T> setting) {
            return StreamConfig.builder()
                    .set(PREFETCH_INITIAL_SIZE, INITIAL_WINDOW)
                    .build()
                    .get(setting);
        }

        @Override
        public OptionalLong knownLength() {
            return OptionalLong.of(file.length);
        }

        @Override
        public Optional<String> etag() {
            return Optional.of("\"e\"");
        }

        @Override
        public CompletableFuture<ByteBuffer> read(ByteRange range) {
            return CompletableFuture.completedFuture(ByteBuffer.wrap(file, (int) range.start(), (int) range.length())
                    .slice());
        }

        @Override
        public void prefetch(List<ByteRange> ranges) {
            prefetched.addAll(ranges);
        }

        @Override
        public Executor executor() {
            return Runnable::run;
        }

        @Override
        public void predictionWasted(long bytes) {
            wasted += bytes;
        }

        @Override
        public boolean predictionsAllowed() {
            return predictionsAllowed;
        }
    }
}
