package io.rangefetch.parquet;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * parquet-java reading through {@link S3ParquetInputFile} over the in-memory client, without Hadoop's runtime:
 * the records come back as written, the footer costs one GET and no HEAD, a row group's column chunks are
 * fetched as one vectored read, and the same columns of the row groups that follow are prefetched.
 */
class S3ParquetInputFileTest {
    private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
            "message row { required int64 id; required binary name (UTF8); required double score;"
                    + " optional group address { required binary city (UTF8); optional int32 zip; } }");
    private static final int ROWS = 20_000;
    private static final int ROW_GROUPS = 4;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @TempDir
    Path directory;

    /**
     * parquet-java links some Hadoop classes (see the pom), but Hadoop's runtime is absent: its Configuration
     * cannot even load here, so no read below can have gone through Hadoop's file systems.
     */
    @Test
    void hadoopsRuntimeIsAbsent() {
        assertThatThrownBy(() -> Class.forName("org.apache.hadoop.conf.Configuration")
                        .getConstructor()
                        .newInstance())
                .isInstanceOf(NoClassDefFoundError.class);
    }

    @Test
    void recordsComeBackAsWrittenAndTheFooterCostsOneGetAndNoHead() throws IOException {
        byte[] file = write("people.parquet");
        StreamFactory factory = fixture.factory();
        InMemoryObjectClient client = fixture.client();
        S3ParquetInputFile input =
                new S3ParquetInputFile(factory, new S3Location(StreamFixture.BUCKET, "people.parquet"));

        try (ParquetFileReader reader = ParquetFileReader.open(input, readOptions())) {
            // parquet-java opened its stream, asked for the length, read the trailer and the footer
            fixture.awaitQuiet();
            assertThat(client.requests()).extracting(Request::method).containsExactly("GET");
            assertThat(client.gets().get(0).range())
                    .as("the open fetch: a suffix GET of the tail")
                    .startsWith("bytes=-");
            assertThat(input.getLength()).isEqualTo(file.length);
            assertThat(reader.getRecordCount()).isEqualTo(ROWS);
            assertThat(reader.getRowGroups()).hasSize(ROW_GROUPS);
            assertThat(readRecords(reader, SCHEMA)).isEqualTo(expectedRecords());
        }
        fixture.awaitQuiet();
        assertThat(client.count("HEAD")).isZero();
    }

    @Test
    void theLengthAskedForBeforeAnyStreamCostsOneSuffixGetThatAlsoServesTheFooter() throws IOException {
        byte[] file = write("asked.parquet");
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * StreamFixture.MIB)
                .set(SMALL_OBJECT_SIZE, 0)
                .build());
        InMemoryObjectClient client = fixture.client();
        S3ParquetInputFile input =
                new S3ParquetInputFile(factory, new S3Location(StreamFixture.BUCKET, "asked.parquet"));

        assertThat(input.getLength()).isEqualTo(file.length);
        fixture.awaitQuiet();
        assertThat(client.requests()).extracting(Request::method).containsExactly("GET");
        try (ParquetFileReader reader = ParquetFileReader.open(input, readOptions())) {
            assertThat(reader.getRowGroups()).hasSize(ROW_GROUPS);
            fixture.awaitQuiet();
            assertThat(client.requests())
                    .as("the footer came from the cached tail")
                    .hasSize(1);
        }
        fixture.awaitQuiet();
        assertThat(client.count("HEAD")).isZero();
    }

    @Test
    void aProjectionReadsTheFirstRowGroupAndPrefetchesTheSameColumnsOfTheOthers() throws IOException {
        byte[] file = write("projected.parquet");
        // no small-object shortcut, so the requests show how the chunks are fetched
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 64L * StreamFixture.MIB)
                .set(SMALL_OBJECT_SIZE, 0)
                .build());
        InMemoryObjectClient client = fixture.client();
        OpenOptions known = OpenOptions.builder()
                .length(file.length)
                .etag(client.etag(StreamFixture.BUCKET, "projected.parquet"))
                .build();
        S3ParquetInputFile input =
                new S3ParquetInputFile(factory, new S3Location(StreamFixture.BUCKET, "projected.parquet"), known);
        MessageType projection =
                MessageTypeParser.parseMessageType("message row { required int64 id; required double score; }");
        try (ParquetFileReader reader = ParquetFileReader.open(input, readOptions())) {
            fixture.awaitQuiet();
            int footerGets = client.gets().size();
            assertThat(footerGets).as("the footer, read from the file's tail").isEqualTo(1);
            reader.setRequestedSchema(projection);
            List<String> records = readRecords(reader, projection);
            assertThat(records).hasSize(ROWS);
            assertThat(records.get(123)).contains("id: 123").contains("score: " + score(123));
            fixture.awaitQuiet();
            // the first row group's two projected chunks (apart, name between them, but close) in one GET; the
            // same columns of the three row groups after it prefetched together, coalesced, in one more
            assertThat(client.gets()).hasSize(footerGets + 2);
            assertThat(factory.statistics().prefetchedBytes()).isPositive();
            assertThat(factory.statistics().prefetchedBytesUnread()).isZero();
        }
    }

    @Test
    void theSecondFileOfASchemaHasThePredictedColumnsInFlightBeforeItsReaderAsks() throws Exception {
        write("first.parquet");
        write("second.parquet");
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 64L * StreamFixture.MIB)
                .set(SMALL_OBJECT_SIZE, 0)
                .build());
        InMemoryObjectClient client = fixture.client();
        MessageType projection =
                MessageTypeParser.parseMessageType("message row { required int64 id; required double score; }");
        assertThat(readProjected(factory, "first.parquet", projection)).hasSize(ROWS);
        // the second file's first row group: where its id and score chunks lie
        S3ParquetInputFile second =
                new S3ParquetInputFile(factory, new S3Location(StreamFixture.BUCKET, "second.parquet"));
        long firstChunk = firstChunkOf("second.parquet");
        BodyHold held = client.holdBodies(request -> request.isGet()
                && request.key().equals("second.parquet")
                && request.range().startsWith("bytes=" + firstChunk + "-"));
        try (ParquetFileReader reader = ParquetFileReader.open(second, readOptions())) {
            // nothing of the first row group has been asked for yet, and its predicted chunks are on their way
            assertThat(held.awaitHeld(1)).isTrue();
            held.release();
            reader.setRequestedSchema(projection);
            assertThat(readRecords(reader, projection).get(7)).contains("id: 7");
        } finally {
            held.release();
        }
        fixture.awaitQuiet();
        assertThat(client.gets().stream()
                        .filter(get -> get.key().equals("second.parquet")
                                && !get.range().startsWith("bytes=-")
                                && get.byteRange().contains(firstChunk)))
                .as("the predicted chunk was fetched once")
                .hasSize(1);
    }

    @Test
    void aFileOverTheWholeFileSizeIsReadByColumnChunkAndOneWithinItWhole() throws Exception {
        byte[] file = write("columns.parquet");
        MessageType projection =
                MessageTypeParser.parseMessageType("message row { required int64 id; required double score; }");
        InMemoryObjectClient client = fixture.client();
        OpenOptions known = OpenOptions.builder().length(file.length).build();
        // read.small-object-size (8 MiB by default) would read the file whole; parquet.whole-file-size lowers it
        StreamFactory byColumn = fixture.factory(StreamConfig.builder()
                .set(ParquetFormatPolicy.WHOLE_FILE_SIZE, file.length - 1)
                .build());
        assertThat(readProjected(
                        new S3ParquetInputFile(
                                byColumn, new S3Location(StreamFixture.BUCKET, "columns.parquet"), known),
                        projection))
                .hasSize(ROWS);
        fixture.awaitQuiet();
        long fetched = client.gets().stream()
                .mapToLong(get -> get.byteRange().length())
                .sum();
        assertThat(client.gets().get(0).byteRange().end())
                .as("the footer first")
                .isEqualTo(file.length);
        assertThat(client.gets().get(0).byteRange().length()).isLessThan(file.length);
        assertThat(fetched)
                .as("the tail and the id and score chunks, not the whole file")
                .isLessThan(file.length);
        client.clearLog();

        StreamFactory whole = fixture.factory(StreamConfig.builder()
                .set(ParquetFormatPolicy.WHOLE_FILE_SIZE, file.length)
                .build());
        assertThat(readProjected(
                        new S3ParquetInputFile(whole, new S3Location(StreamFixture.BUCKET, "columns.parquet"), known),
                        projection))
                .hasSize(ROWS);
        fixture.awaitQuiet();
        assertThat(client.gets().stream()
                        .mapToLong(get -> get.byteRange().length())
                        .sum())
                .as("a file within the whole-file size is fetched whole, once")
                .isEqualTo(file.length);
    }

    @Test
    void onceAFooterIsParsedTheNextFilesOpenFetchIsCutToItsSize() throws Exception {
        byte[] first = write("footer-1.parquet");
        byte[] second = write("footer-2.parquet");
        // files larger than the whole-file size, so each opens with its tail
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(ParquetFormatPolicy.WHOLE_FILE_SIZE, 0)
                .build());
        InMemoryObjectClient client = fixture.client();
        MessageType projection = MessageTypeParser.parseMessageType("message row { required int64 id; }");
        assertThat(readProjected(
                        new S3ParquetInputFile(
                                factory,
                                new S3Location(StreamFixture.BUCKET, "footer-1.parquet"),
                                OpenOptions.builder().length(first.length).build()),
                        projection))
                .hasSize(ROWS);
        fixture.awaitQuiet();
        assertThat(client.gets().get(0).byteRange().length())
                .as("no footer seen yet: the configured precache")
                .isEqualTo(StreamConfig.defaults().get(ParquetFormatPolicy.FOOTER_PRECACHE_SIZE));
        client.clearLog();
        // the footer and the page indexes parquet-java writes right before it
        long tail = first.length - pageIndexesStart("footer-1.parquet");
        assertThat(tail).isGreaterThan(footerLength(first) + 8L);
        assertThat(readProjected(
                        new S3ParquetInputFile(
                                factory,
                                new S3Location(StreamFixture.BUCKET, "footer-2.parquet"),
                                OpenOptions.builder().length(second.length).build()),
                        projection))
                .hasSize(ROWS);
        fixture.awaitQuiet();
        assertThat(client.gets().get(0).byteRange())
                .as("the first file's footer and page indexes, a quarter and 1 KiB more")
                .isEqualTo(new ByteRange(second.length - (tail + tail / 4 + 1024), second.length));
        assertThat(second.length - pageIndexesStart("footer-2.parquet")).isLessThanOrEqualTo(tail + tail / 4 + 1024);
        assertThat(client.gets())
                .as("the footer came in the open fetch")
                .noneMatch(get -> get.byteRange().end() == second.length
                        && get != client.gets().get(0));
    }

    @Test
    void anotherTablesFootersDoNotCutATablesTail() throws Exception {
        byte[] small = write("small.parquet");
        fixture.client().put(StreamFixture.BUCKET, "other/p=1/small.parquet", small);
        byte[] file = write("big.parquet");
        fixture.client().put(StreamFixture.BUCKET, "big/p=2/q=3/big.parquet", file);
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(ParquetFormatPolicy.WHOLE_FILE_SIZE, 0)
                .build());
        InMemoryObjectClient client = fixture.client();
        MessageType projection = MessageTypeParser.parseMessageType("message row { required int64 id; }");
        assertThat(readProjected(
                        new S3ParquetInputFile(
                                factory,
                                new S3Location(StreamFixture.BUCKET, "other/p=1/small.parquet"),
                                OpenOptions.builder().length(small.length).build()),
                        projection))
                .hasSize(ROWS);
        fixture.awaitQuiet();
        client.clearLog();
        assertThat(readProjected(
                        new S3ParquetInputFile(
                                factory,
                                new S3Location(StreamFixture.BUCKET, "big/p=2/q=3/big.parquet"),
                                OpenOptions.builder().length(file.length).build()),
                        projection))
                .hasSize(ROWS);
        fixture.awaitQuiet();
        assertThat(client.gets().get(0).byteRange().length())
                .as("a table not seen yet: the configured precache")
                .isEqualTo(StreamConfig.defaults().get(ParquetFormatPolicy.FOOTER_PRECACHE_SIZE));
    }

    /** Where the file's first page index starts, from the local copy. */
    private long pageIndexesStart(String key) throws IOException {
        try (ParquetFileReader peek = ParquetFileReader.open(
                new org.apache.parquet.io.LocalInputFile(directory.resolve(key)), readOptions())) {
            return peek.getRowGroups().stream()
                    .flatMap(rowGroup -> rowGroup.getColumns().stream())
                    .flatMap(chunk -> java.util.stream.Stream.of(
                            chunk.getColumnIndexReference(), chunk.getOffsetIndexReference()))
                    .filter(java.util.Objects::nonNull)
                    .mapToLong(org.apache.parquet.internal.hadoop.metadata.IndexReference::getOffset)
                    .min()
                    .orElseThrow();
        }
    }

    private static int footerLength(byte[] file) {
        return ByteBuffer.wrap(file, file.length - 8, 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .getInt();
    }

    @Test
    void aReaderThatReadsChunkByChunkGetsTheNextRowGroupsOfItsColumnPrefetched() throws Exception {
        byte[] file = write("chunks.parquet");
        ParquetFormatPolicy policy = new ParquetFormatPolicy();
        StreamFactory factory = fixture.factory(
                StreamConfig.builder()
                        .set(CACHE_MAX_MEMORY, 64L * StreamFixture.MIB)
                        .set(SMALL_OBJECT_SIZE, 0)
                        .build(),
                List.of(policy));
        InMemoryObjectClient client = fixture.client();
        String etag = client.etag(StreamFixture.BUCKET, "chunks.parquet");
        List<ByteRange> idChunks = new ArrayList<>();
        try (ParquetFileReader local = ParquetFileReader.open(
                new org.apache.parquet.io.LocalInputFile(directory.resolve("chunks.parquet")), readOptions())) {
            local.getRowGroups()
                    .forEach(rowGroup -> idChunks.add(ByteRange.ofLength(
                            rowGroup.getColumns().get(0).getStartingPos(),
                            rowGroup.getColumns().get(0).getTotalSize())));
        }
        // no S3ParquetInputFile: the key's extension picks the Parquet policy for any reader of a stream
        S3Location location = new S3Location(StreamFixture.BUCKET, "chunks.parquet");
        try (SeekableS3InputStream stream = factory.open(
                location, OpenOptions.builder().length(file.length).etag(etag).build())) {
            byte[] trailer = new byte[8];
            stream.readTail(trailer, 0, trailer.length); // as a reader starts: the footer, from the open fetch
            fixture.awaitQuiet();
            assertThat(client.gets()).as("the tail, fetched on open").hasSize(1);
            awaitFooter(policy, stream);
            for (ByteRange chunk : idChunks) {
                readChunk(stream, chunk, file);
            }
            fixture.awaitQuiet();
            // the tail, the first chunk's GET, then one GET (coalesced across gaps narrower than the minimum
            // request) the first read's prefetch sent for the rest: a later read that found its chunk neither
            // cached nor in flight would have sent one more
            assertThat(client.gets()).hasSize(3);
            ByteRange tail = client.gets().get(0).byteRange();
            ByteRange prefetched = client.gets().get(2).byteRange();
            assertThat(idChunks.subList(1, idChunks.size()))
                    .allMatch(chunk -> within(chunk, prefetched) || within(chunk, tail));
            assertThat(stream.statistics().prefetchedBytesUnread()).isZero();
        }
    }

    private static void awaitFooter(ParquetFormatPolicy policy, SeekableS3InputStream stream) throws Exception {
        // parsed on the factory's threads, not the reader's
        assertThat(stream.etag()).isPresent();
        ParquetFooter footer = policy.footerOf(stream.location(), stream.etag().get())
                .orElseThrow()
                .get(20, TimeUnit.SECONDS);
        assertThat(footer).isNotNull();
    }

    private static boolean within(ByteRange inner, ByteRange outer) {
        return outer.start() <= inner.start() && inner.end() <= outer.end();
    }

    private static void readChunk(SeekableS3InputStream stream, ByteRange chunk, byte[] file) throws IOException {
        byte[] bytes = new byte[(int) chunk.length()];
        stream.readFully(chunk.start(), bytes, 0, bytes.length);
        assertThat(bytes).isEqualTo(java.util.Arrays.copyOfRange(file, (int) chunk.start(), (int) chunk.end()));
    }

    @Test
    void aWrongPredictionCostsOnlyBytesAndTheyShowAsPrefetchedButUnread() throws Exception {
        write("learned.parquet");
        write("other-reader.parquet");
        InMemoryObjectClient client = fixture.client();
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 64L * StreamFixture.MIB)
                .set(SMALL_OBJECT_SIZE, 0)
                .build());
        MessageType idAndScore =
                MessageTypeParser.parseMessageType("message row { required int64 id; required double score; }");
        assertThat(readProjected(factory, "learned.parquet", idAndScore)).hasSize(ROWS);
        long firstChunk = firstChunkOf("other-reader.parquet");
        fixture.awaitQuiet();
        long prefetchedBefore = factory.statistics().prefetchedBytes();
        long servedBefore = factory.statistics().bytesServed();
        // this file's reader reads other columns than the history predicts, stored after them
        MessageType city = MessageTypeParser.parseMessageType(
                "message row { optional group address { required binary city (UTF8); } }");
        BodyHold held = client.holdBodies(request -> request.isGet()
                && request.key().equals("other-reader.parquet")
                && request.range().startsWith("bytes=" + firstChunk + "-"));
        try (ParquetFileReader reader = ParquetFileReader.open(
                new S3ParquetInputFile(factory, new S3Location(StreamFixture.BUCKET, "other-reader.parquet")),
                readOptions())) {
            assertThat(held.awaitHeld(1))
                    .as("the predicted id and score chunks are on their way")
                    .isTrue();
            held.release();
            // in the cache before the reader starts, so closing its stream cannot stop them
            fixture.awaitQuiet();
            assertThat(factory.statistics().prefetchedBytes() - prefetchedBefore)
                    .isGreaterThanOrEqualTo(predictedChunkBytes("other-reader.parquet"));
            reader.setRequestedSchema(city);
            List<String> records = readRecords(reader, city);
            assertThat(records).hasSize(ROWS);
            assertThat(records.get(97)).contains("city: city-6");
        } finally {
            held.release();
        }
        assertThat(factory.statistics().bytesServed()).isGreaterThan(servedBefore);
        factory.close(); // drops the cache: what was prefetched and never read is counted now
        assertThat(factory.statistics().prefetchedBytesUnread())
                .as("the mispredicted chunks")
                .isPositive();
    }

    /** Reads {@code key} through an {@link S3ParquetInputFile}, only the columns of {@code projection}. */
    private static List<String> readProjected(StreamFactory factory, String key, MessageType projection)
            throws IOException {
        return readProjected(new S3ParquetInputFile(factory, new S3Location(StreamFixture.BUCKET, key)), projection);
    }

    private static List<String> readProjected(S3ParquetInputFile input, MessageType projection) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(input, readOptions())) {
            reader.setRequestedSchema(projection);
            return readRecords(reader, projection);
        }
    }

    /** The bytes of the id and score chunks of the file's first row group, from the local copy. */
    private long predictedChunkBytes(String key) throws IOException {
        try (ParquetFileReader peek = ParquetFileReader.open(
                new org.apache.parquet.io.LocalInputFile(directory.resolve(key)), readOptions())) {
            return peek.getRowGroups().get(0).getColumns().stream()
                    .filter(chunk ->
                            List.of("id", "score").contains(chunk.getPath().toDotString()))
                    .mapToLong(chunk -> chunk.getTotalSize())
                    .sum();
        }
    }

    /** Where the first column chunk of the file's first row group starts, from the local copy. */
    private long firstChunkOf(String key) throws IOException {
        try (ParquetFileReader peek = ParquetFileReader.open(
                new org.apache.parquet.io.LocalInputFile(directory.resolve(key)), readOptions())) {
            return peek.getRowGroups().get(0).getColumns().get(0).getStartingPos();
        }
    }

    private static ParquetReadOptions readOptions() {
        return ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    }

    private static List<String> readRecords(ParquetFileReader reader, MessageType schema) throws IOException {
        List<String> records = new ArrayList<>();
        MessageColumnIO columns = new ColumnIOFactory().getColumnIO(schema);
        for (PageReadStore rowGroup = reader.readNextRowGroup();
                rowGroup != null;
                rowGroup = reader.readNextRowGroup()) {
            RecordReader<Group> records1 = columns.getRecordReader(rowGroup, new GroupRecordConverter(schema));
            for (long i = 0; i < rowGroup.getRowCount(); i++) {
                records.add(records1.read().toString());
            }
        }
        return records;
    }

    /** Writes the file with parquet-java, stores it in the bucket and returns its bytes. */
    private byte[] write(String key) throws IOException {
        Path path = directory.resolve(key);
        ParquetTestFiles.write(path, SCHEMA, ROWS, ROWS / ROW_GROUPS, (groups, row) -> record(groups, row));
        byte[] bytes = Files.readAllBytes(path);
        fixture.client().put(StreamFixture.BUCKET, key, bytes);
        return bytes;
    }

    private static List<String> expectedRecords() {
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        List<String> records = new ArrayList<>(ROWS);
        for (int row = 0; row < ROWS; row++) {
            records.add(record(groups, row).toString());
        }
        return records;
    }

    private static Group record(SimpleGroupFactory groups, int row) {
        Group group = groups.newGroup()
                .append("id", (long) row)
                .append("name", "name-" + row % 97)
                .append("score", score(row));
        if (row % 3 != 0) {
            Group address = group.addGroup("address").append("city", "city-" + row % 13);
            if (row % 2 == 0) {
                address.append("zip", 10_000 + row % 900);
            }
        }
        return group;
    }

    private static double score(int row) {
        return row * 0.5;
    }
}
