package io.rangefetch.parquet;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
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
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The column history predicts what readers of a schema read; a reader of the same table that reads less must not
 * pay a whole prefetch budget for the history's guess. Real parquet-java, two files of one table, one factory.
 */
class ColumnHistoryWasteTest {
    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType("message row { required int64 id; required binary payload (UTF8); }");
    private static final int ROWS = 80_000;
    private static final int ROW_GROUPS = 8;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @TempDir
    Path directory;

    // repeated: reads made before the policy parsed the footer must be looked at in the order they came
    @RepeatedTest(10)
    void aHistoryWrongForTheNextReaderWastesAtMostOneRowGroupOfTheColumnItSkips() throws IOException {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Path path = directory.resolve("part-" + i + ".parquet");
            ParquetTestFiles.write(
                    path,
                    SCHEMA,
                    ROWS,
                    ROWS / ROW_GROUPS,
                    (groups, row) -> groups.newGroup()
                            .append("id", (long) row)
                            .append("payload", "payload-" + row + "-" + "x".repeat(80)));
            fixture.client().put(StreamFixture.BUCKET, "table/part-" + i + ".parquet", Files.readAllBytes(path));
            files.add(path);
        }
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * StreamFixture.MIB)
                .set(SMALL_OBJECT_SIZE, 0)
                .build());
        // the first reader reads both columns: the history learns them; the second reads only id
        read(factory, files.get(0), "table/part-0.parquet", SCHEMA);
        read(
                factory,
                files.get(1),
                "table/part-1.parquet",
                MessageTypeParser.parseMessageType("message row { required int64 id; }"));
        fixture.awaitQuiet();

        List<ByteRange> payload = payloadChunks(files.get(1));
        long payloadFetched = 0;
        for (Request get : fixture.client().gets()) {
            if (get.key().equals("table/part-1.parquet")) {
                for (ByteRange chunk : payload) {
                    payloadFetched += overlap(get.byteRange(), chunk);
                }
            }
        }
        // the first row group's payload chunk, and what the footer's tail reaches back into the last one
        long bound = payload.get(0).length() + 64 * 1024;
        assertThat(payloadFetched)
                .as(
                        "payload bytes the second reader fetched, of %,d in all",
                        payload.stream().mapToLong(ByteRange::length).sum())
                .isLessThanOrEqualTo(bound);
    }

    private static long read(StreamFactory factory, Path local, String key, MessageType projection) throws IOException {
        long rows = ParquetTestFiles.readRowGroups(
                factory,
                local,
                key,
                ParquetReadOptions.builder(new PlainParquetConfiguration()).build(),
                projection);
        assertThat(rows).isEqualTo(ROWS);
        return rows;
    }

    private static long overlap(ByteRange a, ByteRange b) {
        return Math.max(0, Math.min(a.end(), b.end()) - Math.max(a.start(), b.start()));
    }

    /** Where the payload column's chunks lie: the column the reader does not read. */
    private static List<ByteRange> payloadChunks(Path file) throws IOException {
        List<ByteRange> chunks = ParquetTestFiles.chunks(file, "payload");
        assertThat(chunks).hasSize(ROW_GROUPS);
        return chunks;
    }
}
