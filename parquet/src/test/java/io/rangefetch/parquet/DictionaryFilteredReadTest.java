package io.rangefetch.parquet;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.OpenOptions;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * How Spark's vectorized Parquet reader reads a file, through parquet-java itself: with a filter on a
 * dictionary-encoded column, parquet-java first reads that column's dictionary page in every row group (the page
 * header byte by byte, then the page), and only then reads the projected chunks of the row groups it keeps, as
 * vectored reads. Those first reads follow one another closely enough to look like a scan; the stream must still
 * fetch no column the reader does not read.
 */
class DictionaryFilteredReadTest {
    private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
            "message row { required int64 id; required binary name (UTF8); required binary payload (UTF8); }");
    private static final MessageType PROJECTION =
            MessageTypeParser.parseMessageType("message row { required int64 id; required binary name (UTF8); }");
    private static final int ROWS = 80_000;
    private static final int ROW_GROUPS = 8;
    private static final long MIN_REQUEST = 64 * 1024;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @TempDir
    Path directory;

    @Test
    void dictionaryReadsOfEveryRowGroupFetchNoColumnTheReaderDoesNotRead() throws IOException {
        Path local = write("filtered.parquet");
        List<ByteRange> unread = payloadChunks(local);
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * StreamFixture.MIB)
                .set(SMALL_OBJECT_SIZE, 0)
                .build());
        ParquetReadOptions options = nameFilter();
        long rows = 0;
        long idSum = 0;
        try (ParquetFileReader reader = ParquetFileReader.open(
                new S3ParquetInputFile(
                        factory,
                        new S3Location(StreamFixture.BUCKET, "filtered.parquet"),
                        OpenOptions.builder().length(Files.size(local)).build()),
                options)) {
            reader.setRequestedSchema(PROJECTION);
            for (PageReadStore rowGroup = reader.readNextRowGroup();
                    rowGroup != null;
                    rowGroup = reader.readNextRowGroup()) {
                rows += rowGroup.getRowCount();
                idSum += sumOfIds(rowGroup);
            }
        }
        fixture.awaitQuiet();
        assertThat(rows).as("every row group holds name-5: none is dropped").isEqualTo(ROWS);
        assertThat(idSum).isEqualTo((long) ROWS * (ROWS - 1) / 2);
        long unreadFetched = 0;
        for (Request get : fixture.client().gets()) {
            for (ByteRange chunk : unread) {
                unreadFetched += overlap(get.byteRange(), chunk);
            }
        }
        long unreadBytes = unread.stream().mapToLong(ByteRange::length).sum();
        assertThat(unreadFetched)
                .as(
                        "bytes fetched of the %,d bytes of payload chunks no read asked for, by %s",
                        unreadBytes, fixture.client().gets())
                .isLessThanOrEqualTo(ROW_GROUPS * MIN_REQUEST);
    }

    @Test
    void theNextFileOfTheTableFetchesEveryByteOnceInAboutOneRequestPerRowGroup() throws IOException {
        // the reader projects id, name and category, filters on name; category has a dictionary too
        MessageType schema = MessageTypeParser.parseMessageType("message row { required int64 id;"
                + " required binary name (UTF8); required binary category (UTF8); required binary payload (UTF8); }");
        MessageType projection = MessageTypeParser.parseMessageType("message row { required int64 id;"
                + " required binary name (UTF8); required binary category (UTF8); }");
        List<Path> files = new ArrayList<>();
        for (String key : List.of("table/part-0.parquet", "table/part-1.parquet")) {
            Path path = directory.resolve(key.replace('/', '-'));
            ParquetTestFiles.write(
                    path,
                    schema,
                    ROWS,
                    ROWS / ROW_GROUPS,
                    (groups, row) -> groups.newGroup()
                            .append("id", (long) row)
                            .append("name", "name-" + row % 97)
                            .append("category", "category-" + row % 13)
                            .append("payload", "payload-" + row + "-" + "x".repeat(80)));
            fixture.client().put(StreamFixture.BUCKET, key, Files.readAllBytes(path));
            files.add(path);
        }
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * StreamFixture.MIB)
                .set(SMALL_OBJECT_SIZE, 0)
                .build());
        ParquetReadOptions options = nameFilter();
        for (int i = 0; i < files.size(); i++) {
            String key = "table/part-" + i + ".parquet";
            long rows = 0;
            try (ParquetFileReader reader = ParquetFileReader.open(
                    new S3ParquetInputFile(
                            factory,
                            new S3Location(StreamFixture.BUCKET, key),
                            OpenOptions.builder()
                                    .length(Files.size(files.get(i)))
                                    .build()),
                    options)) {
                reader.setRequestedSchema(projection);
                for (PageReadStore rowGroup = reader.readNextRowGroup();
                        rowGroup != null;
                        rowGroup = reader.readNextRowGroup()) {
                    rows += rowGroup.getRowCount();
                }
            }
            assertThat(rows).isEqualTo(ROWS);
        }
        fixture.awaitQuiet();
        List<Request> second = fixture.client().gets().stream()
                .filter(get -> get.key().equals("table/part-1.parquet"))
                .toList();
        List<ByteRange> filterDictionaries = dictionaryPages(files.get(1), "name");
        long movedTwice = 0;
        for (int a = 0; a < second.size(); a++) {
            for (int b = a + 1; b < second.size(); b++) {
                ByteRange x = second.get(a).byteRange();
                ByteRange y = second.get(b).byteRange();
                long start = Math.max(x.start(), y.start());
                long end = Math.min(x.end(), y.end());
                if (end > start) {
                    ByteRange both = new ByteRange(start, end);
                    movedTwice += both.length()
                            - filterDictionaries.stream()
                                    .mapToLong(page -> overlap(both, page))
                                    .sum();
                }
            }
        }
        // the second file's category chunks are predicted from the first's: their dictionaries come with them;
        // a chunk read after its dictionary page may read that small page again rather than cost a GET more
        assertThat(movedTwice)
                .as("bytes of the second file but the filter's dictionary pages fetched twice, by %s", second)
                .isZero();
        assertThat(second)
                .as("the footer, the filter's dictionaries, each row group's chunks (a part each)")
                .hasSizeLessThanOrEqualTo(2 + 2 * ROW_GROUPS + ROW_GROUPS);
    }

    /** A dictionary filter on {@code name}: a value every row group holds, so none is dropped. */
    private static ParquetReadOptions nameFilter() {
        return ParquetReadOptions.builder(new PlainParquetConfiguration())
                .withRecordFilter(
                        FilterCompat.get(FilterApi.eq(FilterApi.binaryColumn("name"), Binary.fromString("name-5"))))
                .useDictionaryFilter(true)
                .build();
    }

    private static long sumOfIds(PageReadStore rowGroup) {
        RecordReader<Group> records = new ColumnIOFactory()
                .getColumnIO(PROJECTION)
                .getRecordReader(rowGroup, new GroupRecordConverter(PROJECTION));
        long sum = 0;
        for (long i = 0; i < rowGroup.getRowCount(); i++) {
            sum += records.read().getLong("id", 0);
        }
        return sum;
    }

    private static long overlap(ByteRange a, ByteRange b) {
        return Math.max(0, Math.min(a.end(), b.end()) - Math.max(a.start(), b.start()));
    }

    /** Where {@code column}'s dictionary pages lie. */
    private static List<ByteRange> dictionaryPages(Path file, String column) throws IOException {
        List<ByteRange> pages = new ArrayList<>();
        try (ParquetFileReader peek = ParquetFileReader.open(
                new LocalInputFile(file),
                ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
            for (BlockMetaData rowGroup : peek.getRowGroups()) {
                for (ColumnChunkMetaData chunk : rowGroup.getColumns()) {
                    if (chunk.getPath().toDotString().equals(column) && chunk.hasDictionaryPage()) {
                        pages.add(new ByteRange(chunk.getDictionaryPageOffset(), chunk.getFirstDataPageOffset()));
                    }
                }
            }
        }
        assertThat(pages).hasSize(ROW_GROUPS);
        return pages;
    }

    /** Where the payload column's chunks lie: the column the reader does not read. */
    private static List<ByteRange> payloadChunks(Path file) throws IOException {
        List<ByteRange> chunks = ParquetTestFiles.chunks(file, "payload");
        assertThat(chunks).hasSize(ROW_GROUPS);
        return chunks;
    }

    /** Writes the file (names from a dictionary of 97, payloads all different) and stores it in the bucket. */
    private Path write(String key) throws IOException {
        Path path = directory.resolve(key);
        ParquetTestFiles.write(
                path,
                SCHEMA,
                ROWS,
                ROWS / ROW_GROUPS,
                (groups, row) -> groups.newGroup()
                        .append("id", (long) row)
                        .append("name", "name-" + row % 97)
                        .append("payload", "payload-" + row + "-" + "x".repeat(80)));
        fixture.client().put(StreamFixture.BUCKET, key, Files.readAllBytes(path));
        return path;
    }
}
