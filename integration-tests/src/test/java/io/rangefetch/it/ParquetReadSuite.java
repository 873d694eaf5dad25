package io.rangefetch.it;

import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.S3Location;
import io.rangefetch.parquet.ParquetFormatPolicy;
import io.rangefetch.parquet.S3ParquetInputFile;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * parquet-java reading files it wrote, through {@link S3ParquetInputFile}, from a real S3 server: subclassed once
 * per backend. Each file is written with parquet-java to a local directory, uploaded, then read back through a
 * {@link io.rangefetch.testing.proxy.ShapingProxy} that does not shape ({@link NetworkModel#unshaped()}): its ledger
 * tells the GETs each read sends, whatever Rangefetch's own statistics say. Records are compared with the rows
 * written, footers and page indexes with what parquet-java reads from the local copy.
 *
 * <p>What it pins: the records of every layout come back right (flat, nested and repeated, dictionary-encoded,
 * with and without a column index, one and several row groups); a footer costs a fixed number of GETs however
 * large it is, and never a HEAD; a projection costs each row group a GET per maximum request of its projected
 * chunks, never one per page; a file that is not Parquet fails in parquet-java with parquet-java's error, while its
 * bytes still read right.
 *
 * <p>The files whose footer and projection GETs are counted exactly are larger than
 * {@code read.small-object-size} (8 MiB), so no read is widened to the whole object and every GET is one the
 * footer or a row group asked for.
 */
abstract class ParquetReadSuite extends ProxiedS3ServerTestBase {
    private static final int MIB = 1024 * 1024;
    private static final StreamConfig DEFAULTS = StreamConfig.defaults();
    private static final StreamConfig UNHEDGED =
            StreamConfig.builder().set(StreamConfig.HEDGE_ENABLED, false).build();
    /** A suffix GET for a tail of unknown length asks for {@code read.min-request-size}: 64 KiB. */
    private static final long TAIL_BYTES = DEFAULTS.get(MIN_REQUEST_SIZE);
    /** Parquet's trailer: the footer's length (4 bytes, little-endian) and "PAR1". */
    private static final int TRAILER_BYTES = 8;

    /** 16 columns in 4 row groups of 20,000 rows, pages of 1,000 rows: chunks of 160 KB, 10.3 MB in all. */
    private static final ParquetShape SIXTEEN_COLUMNS =
            ParquetShape.wide("sixteen-columns.parquet", 16, 4, 20_000, 1_000);
    /**
     * 256 columns in 48 row groups: 12,288 column chunks, whose metadata make a footer of 1.2 MiB; 11.6 MB in all,
     * 9.4 MB of it values.
     */
    private static final ParquetShape WIDE = ParquetShape.wide("wide.parquet", 256, 48, 96, 96);

    @TempDir
    Path directory;

    /** {@link #SIXTEEN_COLUMNS}' bytes, once a test has uploaded them (each test has its own directory). */
    private byte[] sixteenColumns;

    ParquetReadSuite() {
        super(NetworkModel.unshaped());
    }

    static Stream<ParquetShape> layouts() {
        return Stream.of(
                ParquetShape.flat(1),
                ParquetShape.flat(4),
                ParquetShape.flatWithoutColumnIndex(4),
                ParquetShape.nested(1),
                ParquetShape.nested(4),
                ParquetShape.dictionary(4));
    }

    /**
     * Every record comes back as written, and the footer as parquet-java reads it locally. All columns are read,
     * so a row group's chunks lie side by side and parquet-java asks for one range a row group, far under
     * {@code read.max-request-size}: no GET beyond the footer's and one a row group (fewer where a row group lies
     * in the tail the footer's GET cached), and no HEAD.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void recordsComeBackAsWritten(ParquetShape shape) throws Exception {
        Path local = upload(shape);
        Optional<ProxyLedger> ledger = countingLedgerIfProxied();
        withFactory(factory -> {
            try (ParquetFileReader reader = open(new S3ParquetInputFile(factory, location(shape.name())));
                    ParquetFileReader expected = ParquetFileReader.open(new LocalInputFile(local), readOptions())) {
                assertThat(ParquetMetadata.toJSON(reader.getFooter()))
                        .isEqualTo(ParquetMetadata.toJSON(expected.getFooter()));
                long footerGets = ledger.map(ProxyLedger::gets).orElse(0L);
                // the suffix GET, and one for the trailer (see openingTheFileWithoutALengthCostsOneGet)
                assertThat(footerGets).as("footer GETs: %s", ledger).isLessThanOrEqualTo(2);
                assertRecords(reader, shape, shape.schema(), rowGroup -> {});
                ledger.ifPresent(counts -> assertThat(counts.gets())
                        .as("GETs: %s", counts.requests())
                        .isLessThanOrEqualTo(footerGets + reader.getRowGroups().size()));
            }
        });
        ledger.ifPresent(counts -> assertThat(counts.heads()).isZero());
    }

    /**
     * The dictionary pages of a dictionary-encoded column read back over S3 and decode to its seven strings: the
     * records test's dictionary layout is what it claims to be.
     */
    @Test
    void aDictionaryEncodedColumnReadsItsDictionaryPages() throws Exception {
        ParquetShape shape = ParquetShape.dictionary(4);
        upload(shape);
        withFactory(factory -> {
            try (ParquetFileReader reader = open(new S3ParquetInputFile(factory, location(shape.name())))) {
                ColumnDescriptor country = shape.schema().getColumnDescription(new String[] {"country"});
                int rowGroups = 0;
                for (PageReadStore rowGroup = reader.readNextRowGroup();
                        rowGroup != null;
                        rowGroup = reader.readNextRowGroup(), rowGroups++) {
                    DictionaryPage page = rowGroup.getPageReader(country).readDictionaryPage();
                    assertThat(page)
                            .as("dictionary page of row group %d", rowGroups)
                            .isNotNull();
                    Dictionary dictionary = page.getEncoding().initDictionary(country, page);
                    List<String> words = new ArrayList<>();
                    for (int id = 0; id <= dictionary.getMaxId(); id++) {
                        words.add(dictionary.decodeToBinary(id).toStringUsingUTF8());
                    }
                    assertThat(words).containsExactlyInAnyOrderElementsOf(ParquetShape.COUNTRY_NAMES);
                }
                assertThat(rowGroups).isEqualTo(4);
            }
        });
    }

    static Stream<Arguments> pageIndexes() {
        return Stream.of(
                Arguments.of(ParquetShape.flat(4), true), Arguments.of(ParquetShape.flatWithoutColumnIndex(4), false));
    }

    /**
     * Offset indexes, and column indexes where written, read over S3 as parquet-java reads them locally. They sit
     * between the last row group and the footer, inside the tail the footer's GET fetched, so they cost no GET.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("pageIndexes")
    void pageIndexesReadAsWritten(ParquetShape shape, boolean columnIndexes) throws Exception {
        Path local = upload(shape);
        long length = Files.size(local);
        Optional<ProxyLedger> ledger = countingLedgerIfProxied();
        withFactory(factory -> {
            try (ParquetFileReader reader = open(new S3ParquetInputFile(factory, location(shape.name())));
                    ParquetFileReader expected = ParquetFileReader.open(new LocalInputFile(local), readOptions())) {
                long footerGets = ledger.map(ProxyLedger::gets).orElse(0L);
                int chunks = 0;
                for (BlockMetaData rowGroup : reader.getRowGroups()) {
                    for (ColumnChunkMetaData chunk : rowGroup.getColumns()) {
                        assertThat(chunk.getOffsetIndexReference().getOffset())
                                .as("where %s's offset index is", chunk)
                                .isGreaterThanOrEqualTo(length - TAIL_BYTES);
                        OffsetIndex offsets = reader.readOffsetIndex(chunk);
                        assertThat(offsets.getPageCount())
                                .as("pages of %s", chunk)
                                .isEqualTo(5);
                        assertThat(describe(offsets)).isEqualTo(describe(expected.readOffsetIndex(chunk)));
                        ColumnIndex index = reader.readColumnIndex(chunk);
                        if (columnIndexes) {
                            assertThat(describe(index)).isEqualTo(describe(expected.readColumnIndex(chunk)));
                        } else {
                            assertThat(chunk.getColumnIndexReference()).isNull();
                            assertThat(index).isNull();
                        }
                        chunks++;
                    }
                }
                assertThat(chunks).isEqualTo(4 * 3);
                ledger.ifPresent(counts -> assertThat(counts.gets())
                        .as("GETs: %s", counts.requests())
                        .isEqualTo(footerGets));
            }
        });
    }

    /**
     * A footer of over 1 MiB costs two GETs when the length is asked first: the suffix GET of the last 64 KiB
     * (which tells the length), then, for parquet-java's one read of the whole footer, one GET of the footer's
     * bytes the tail does not hold, as they are fewer than {@code read.max-request-size}; never one a 64 KiB
     * block. The records come back right, a GET a row group at most (its 256 chunks lie side by side).
     */
    @Test
    void aFooterOverOneMebibyteCostsTwoGets() throws Exception {
        Path local = upload(WIDE);
        long length = Files.size(local);
        int footerLength = footerLength(local);
        assertThat(footerLength).as("footer bytes").isGreaterThan(MIB);
        assertThat(length).as("file bytes").isGreaterThan(DEFAULTS.get(SMALL_OBJECT_SIZE));
        ProxyLedger ledger = countingLedger();
        withFactory(factory -> {
            S3ParquetInputFile input = new S3ParquetInputFile(factory, location(WIDE.name()));
            assertThat(input.getLength()).isEqualTo(length);
            try (ParquetFileReader reader = open(input)) {
                long footerStart = length - TRAILER_BYTES - footerLength;
                assertThat(ledger.requests())
                        .extracting(ProxiedRequest::rangeHeader)
                        .containsExactly(
                                "bytes=-" + TAIL_BYTES, "bytes=" + footerStart + "-" + (length - TAIL_BYTES - 1));
                assertThat(reader.getRowGroups()).hasSize(48);
                assertRecords(reader, WIDE, WIDE.schema(), rowGroup -> {});
            }
        });
        assertThat(ledger.gets()).as("GETs: %s", ledger).isLessThanOrEqualTo(2 + 48);
        assertThat(ledger.heads()).isZero();
    }

    /**
     * Opened without a length, asked its length, then read by parquet-java: the footer costs one suffix GET of the
     * file's tail, no HEAD. The footer is under 64 KiB, so the tail holds it, and the file over 8 MiB, so the tail
     * is not the whole object.
     */
    @Test
    void theFooterCostsOneGetWhenTheLengthIsAskedFirst() throws Exception {
        Path local = uploadSixteenColumns();
        ProxyLedger ledger = countingLedger();
        withFactory(factory -> {
            S3ParquetInputFile input = new S3ParquetInputFile(factory, location(SIXTEEN_COLUMNS.name()));
            assertThat(input.getLength()).isEqualTo(Files.size(local));
            try (ParquetFileReader reader = open(input)) {
                assertThat(reader.getRowGroups()).hasSize(4);
            }
        });
        assertThat(ledger.requests()).extracting(ProxiedRequest::rangeHeader).containsExactly("bytes=-" + TAIL_BYTES);
        assertThat(ledger.heads()).isZero();
    }

    /**
     * What parquet-java does: {@code ParquetFileReader.open} asks for a stream, then for the length. The stream's
     * open fetch is the one GET: a suffix of {@code parquet.footer-precache-size} (a tail reaches the end, so the
     * minimum request does not raise it), which tells the length and holds the footer.
     */
    @Test
    void openingTheFileWithoutALengthCostsOneGet() throws Exception {
        uploadSixteenColumns();
        ProxyLedger ledger = countingLedger();
        withFactory(factory -> {
            try (ParquetFileReader reader = open(new S3ParquetInputFile(factory, location(SIXTEEN_COLUMNS.name())))) {
                assertThat(reader.getRowGroups()).hasSize(4);
            }
        });
        assertThat(ledger.requests())
                .extracting(ProxiedRequest::rangeHeader)
                .containsExactly("bytes=-" + DEFAULTS.get(ParquetFormatPolicy.FOOTER_PRECACHE_SIZE));
        assertThat(ledger.heads()).isZero();
    }

    /**
     * Three of sixteen columns, chunks apart (four unread chunks between two read ones), in pages of 1,000 rows:
     * the scan costs no more GETs than its projected chunks (each within {@code read.max-request-size}, fetched
     * at once rather than through the unread chunks between them while connections are idle), never one a page.
     */
    @Test
    void threeOfSixteenColumnsCostNoMoreGetsThanTheirChunksNeverOneAPage() throws Exception {
        Path local = uploadSixteenColumns();
        int[] columns = {2, 7, 12};
        MessageType projection = ParquetShape.wideSchema(columns);
        List<Long> bounds = new ArrayList<>();
        int pages = 0;
        try (ParquetFileReader expected = ParquetFileReader.open(new LocalInputFile(local), readOptions())) {
            for (BlockMetaData rowGroup : expected.getRowGroups()) {
                List<ColumnChunkMetaData> chunks = projected(rowGroup, projection);
                long gets = 0;
                for (int i = 0; i < chunks.size(); i++) {
                    ColumnChunkMetaData chunk = chunks.get(i);
                    gets += ceilDiv(chunk.getTotalSize(), DEFAULTS.get(MAX_REQUEST_SIZE));
                    pages += expected.readOffsetIndex(chunk).getPageCount();
                    if (i > 0) {
                        ColumnChunkMetaData previous = chunks.get(i - 1);
                        assertThat(chunk.getStartingPos())
                                .as("%s lies apart from %s", chunk, previous)
                                .isGreaterThan(previous.getStartingPos() + previous.getTotalSize());
                    }
                }
                bounds.add(gets);
            }
        }
        assertThat(bounds).hasSize(4);
        long bound = bounds.stream().mapToLong(Long::longValue).sum();
        assertThat(bound).as("the bound rules out a GET a page").isLessThan(pages);

        ProxyLedger ledger = countingLedger();
        // GETs sent so far: once the footer is read, then once each row group's pages are in
        List<Long> sent = new ArrayList<>();
        withFactory(factory -> {
            try (ParquetFileReader reader = open(new S3ParquetInputFile(factory, location(SIXTEEN_COLUMNS.name())))) {
                sent.add(ledger.gets());
                reader.setRequestedSchema(projection);
                assertRecords(reader, SIXTEEN_COLUMNS, projection, rowGroup -> sent.add(ledger.gets()));
            }
        });
        assertThat(sent).as("GETs sent: %s", ledger.requests()).hasSize(1 + bounds.size());
        // Counted over the whole scan, not row group by row group: the column prefetch fetches the later row
        // groups' chunks (coalesced) while the first is read, so their GETs are sent before their turn.
        assertThat(sent.get(bounds.size()) - sent.get(0))
                .as("GETs after the footer: %s", ledger.requests())
                .isLessThanOrEqualTo(bound);
        assertThat(ledger.heads()).isZero();
    }

    /**
     * A file whose last four bytes are not "PAR1" fails in parquet-java's footer read with a plain
     * {@link RuntimeException} naming the file and the bytes found; its bytes still read right.
     */
    @Test
    void aFileNotEndingInPar1FailsToOpenAndItsBytesStillReadRight() throws Exception {
        byte[] file = Files.readAllBytes(ParquetShape.flat(1).write(directory));
        file[file.length - 1] = '0';
        String name = "not-par1.parquet";
        assertOpenFailsAndBytesReadRight(
                name,
                file,
                location(name) + " is not a Parquet file. Expected magic number at tail, but found [80, 65, 82, 48]");
    }

    /** A footer length that points before the file's start fails in parquet-java's footer read the same way. */
    @Test
    void aFooterLongerThanTheFileFailsToOpenAndItsBytesStillReadRight() throws Exception {
        byte[] file = Files.readAllBytes(ParquetShape.flat(1).write(directory));
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt(file.length - TRAILER_BYTES, file.length);
        assertOpenFailsAndBytesReadRight(
                "footer-too-long.parquet",
                file,
                "corrupted file: the footer index is not within the file: " + -TRAILER_BYTES);
    }

    private void assertOpenFailsAndBytesReadRight(String name, byte[] file, String message) throws Exception {
        upload(name, file);
        withFactory(factory -> {
            S3ParquetInputFile input = new S3ParquetInputFile(factory, location(name));
            assertThatThrownBy(() -> open(input))
                    .isExactlyInstanceOf(RuntimeException.class)
                    .hasMessage(message);
            // the same factory, which cached the tail the failed open fetched
            try (SeekableS3InputStream stream = factory.open(location(name))) {
                byte[] tail = new byte[TRAILER_BYTES];
                assertThat(stream.readTail(tail, 0, TRAILER_BYTES)).isEqualTo(TRAILER_BYTES);
                assertThat(tail).isEqualTo(Arrays.copyOfRange(file, file.length - TRAILER_BYTES, file.length));
                assertThat(stream.readAllBytes()).isEqualTo(file);
            }
        });
    }

    /**
     * Uploads {@link #SIXTEEN_COLUMNS} for the first test that needs it; returns a local copy in this test's
     * directory.
     */
    private Path uploadSixteenColumns() throws IOException {
        if (sixteenColumns == null) {
            Path path = upload(SIXTEEN_COLUMNS);
            sixteenColumns = Files.readAllBytes(path);
            assertThat(sixteenColumns.length).isGreaterThan(Math.toIntExact(DEFAULTS.get(SMALL_OBJECT_SIZE)));
            return path;
        }
        return Files.write(directory.resolve(SIXTEEN_COLUMNS.name()), sixteenColumns);
    }

    /** Writes {@code shape} locally, uploads it, and returns the local copy. */
    private Path upload(ParquetShape shape) throws IOException {
        Path path = shape.write(directory);
        upload(shape.name(), Files.readAllBytes(path));
        return path;
    }

    private void upload(String name, byte[] bytes) {
        try (S3Client s3 = S3Clients.sync(server())) {
            put(s3, name, bytes);
        }
    }

    private S3Location location(String name) {
        return new S3Location(bucket(), key(name));
    }

    private static ParquetFileReader open(S3ParquetInputFile input) throws IOException {
        return ParquetFileReader.open(input, readOptions());
    }

    private static ParquetReadOptions readOptions() {
        return ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    }

    /**
     * Reads every record of {@code reader}, which reads {@code projection}, and compares each with the row written;
     * {@code afterRowGroup} runs once a row group's pages are in.
     */
    private static void assertRecords(
            ParquetFileReader reader, ParquetShape shape, MessageType projection, RowGroupCheck afterRowGroup)
            throws IOException {
        MessageColumnIO columns = new ColumnIOFactory().getColumnIO(projection);
        int row = 0;
        for (PageReadStore rowGroup = reader.readNextRowGroup();
                rowGroup != null;
                rowGroup = reader.readNextRowGroup()) {
            afterRowGroup.check(rowGroup);
            RecordReader<Group> records = columns.getRecordReader(rowGroup, new GroupRecordConverter(projection));
            for (long i = 0; i < rowGroup.getRowCount(); i++, row++) {
                String record = records.read().toString();
                String written = shape.row(row, projection).toString();
                // one comparison a record: AssertJ's description would cost more than the read
                if (!record.equals(written)) {
                    assertThat(record).as("record %d of %s", row, shape).isEqualTo(written);
                }
            }
        }
        assertThat(row).as("records in %s", shape).isEqualTo(shape.rowCount());
    }

    @FunctionalInterface
    private interface RowGroupCheck {
        void check(PageReadStore rowGroup);
    }

    /** {@code rowGroup}'s chunks of the columns {@code projection} names, in file order. */
    private static List<ColumnChunkMetaData> projected(BlockMetaData rowGroup, MessageType projection) {
        Set<String> names = Set.copyOf(
                projection.getFields().stream().map(field -> field.getName()).toList());
        return rowGroup.getColumns().stream()
                .filter(chunk -> names.contains(chunk.getPath().toDotString()))
                .sorted((a, b) -> Long.compare(a.getStartingPos(), b.getStartingPos()))
                .toList();
    }

    /** The footer's length, from the trailer of the local copy. */
    private static int footerLength(Path local) throws IOException {
        byte[] file = Files.readAllBytes(local);
        return ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getInt(file.length - TRAILER_BYTES);
    }

    private static List<String> describe(OffsetIndex offsets) {
        List<String> pages = new ArrayList<>();
        for (int page = 0; page < offsets.getPageCount(); page++) {
            pages.add(offsets.getOffset(page) + "+" + offsets.getCompressedPageSize(page) + " from row "
                    + offsets.getFirstRowIndex(page));
        }
        return pages;
    }

    private static List<String> describe(ColumnIndex index) {
        List<String> pages = new ArrayList<>();
        for (int page = 0; page < index.getMinValues().size(); page++) {
            pages.add(hex(index.getMinValues().get(page)) + ".."
                    + hex(index.getMaxValues().get(page)) + " nulls "
                    + index.getNullCounts().get(page));
        }
        pages.add(index.getBoundaryOrder().toString());
        return pages;
    }

    private static String hex(ByteBuffer value) {
        StringBuilder hex = new StringBuilder();
        for (int i = value.position(); i < value.limit(); i++) {
            hex.append(String.format("%02x", value.get(i)));
        }
        return hex.toString();
    }

    private static long ceilDiv(long dividend, long divisor) {
        return (dividend + divisor - 1) / divisor;
    }

    /**
     * Runs the body on a factory with the default config but no hedging: these tests count GETs, and a hedge is a
     * second GET of the same bytes sent when a first byte is late on the real clock, which a loaded machine makes
     * (two such duplicates failed the projection's bound once under a busy build).
     */
    private void withFactory(FactoryBody body) throws Exception {
        withFactory(UNHEDGED, body);
    }
}
