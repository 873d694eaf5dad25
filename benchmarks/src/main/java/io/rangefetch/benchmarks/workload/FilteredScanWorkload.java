package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.FilteredParquetSpec;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.ReaderSession;
import java.io.IOException;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * Spark's access sequence on a filtered scan, replayed without Spark: what TPC-H's queries over {@code lineitem}
 * (q01, q06, q12, q14 and the like) make Spark's vectorized Parquet reader send, through parquet-java itself.
 * Per file: the footer on a stream of its own, closed; then a second stream for the data, with a filter on two
 * dictionary-encoded columns, so parquet-java first reads both columns' dictionary pages of every row group and
 * their page indexes (dictionary, statistics and page-index filtering), then each row group's projected chunks as
 * one vectored read. {@value #TASKS} tasks (Spark's {@code local[2]}) read the files side by side, each its share
 * one after another. The filter keeps every row, so every projected value is decoded and checked.
 */
public final class FilteredScanWorkload implements Workload {
    static final int TASKS = 2;
    /** Six of the ten columns, the filter's two among them: as q01 reads lineitem. */
    static final List<String> PROJECTED = List.of("quantity", "price", "discount", "flag", "status", "day");

    private final List<FilteredParquetSpec> specs;
    private final List<StoredObject> objects;

    /** @param specs and {@code objects}: the same files, in the same order */
    public FilteredScanWorkload(List<FilteredParquetSpec> specs, List<StoredObject> objects) {
        this.specs = List.copyOf(requireNonNull(specs, "specs is null"));
        this.objects = List.copyOf(requireNonNull(objects, "objects is null"));
        if (specs.isEmpty() || specs.size() != objects.size()) {
            throw new IllegalArgumentException(specs.size() + " specs for " + objects.size() + " objects");
        }
    }

    @Override
    public String name() {
        return "filtered-scan";
    }

    @Override
    public String description() {
        long bytes = objects.stream().mapToLong(StoredObject::length).sum();
        return String.format(
                "%d Parquet files of %.1f MB shaped like TPC-H's lineitem (%d row groups, dictionary "
                        + "pages, page indexes), read as Spark's vectorized reader reads them with a filter on two "
                        + "dictionary columns: footer on its own stream, then dictionaries, page indexes and %d of %d "
                        + "columns through vectored reads, by %d tasks at once; every value checked",
                objects.size(),
                bytes / 1e6 / objects.size(),
                specs.get(0).rowGroups(),
                PROJECTED.size(),
                FilteredParquetSpec.COLUMNS.size(),
                TASKS);
    }

    /** Per file of a task: the footer, then the dictionaries and page indexes, then the chunks. */
    @Override
    public LowerBound lowerBound() {
        return LowerBound.parallel(3 * ((objects.size() + TASKS - 1) / TASKS));
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        return Outcome.needed(Workloads.sumOverTasks(TASKS, first -> readShare(session, first)));
    }

    private long readShare(ReaderSession session, int first) throws IOException {
        long needed = 0;
        for (int i = first; i < objects.size(); i += TASKS) {
            needed += scan(Workloads.parquetFile(session, objects.get(i)), specs.get(i));
        }
        return needed;
    }

    /** Reads one file as Spark does; answers the bytes it needed (footer, page indexes, projected chunks). */
    private static long scan(InputFile file, FilteredParquetSpec spec) throws IOException {
        ParquetReadOptions options = options();
        ParquetMetadata footer;
        try (SeekableInputStream in = file.newStream()) {
            footer = ParquetFileReader.readFooter(file, options, in);
        }
        MessageType schema = footer.getFileMetaData().getSchema();
        MessageType projection = new MessageType(
                schema.getName(), PROJECTED.stream().map(schema::getType).toList());
        long firstRow = 0;
        try (ParquetFileReader reader = new ParquetFileReader(file, footer, options, file.newStream())) {
            reader.setRequestedSchema(projection);
            String createdBy = footer.getFileMetaData().getCreatedBy();
            for (PageReadStore rowGroup = reader.readNextFilteredRowGroup();
                    rowGroup != null;
                    rowGroup = reader.readNextFilteredRowGroup()) {
                ColumnReadStoreImpl store =
                        new ColumnReadStoreImpl(rowGroup, ParquetScan.IGNORING_CONVERTER, projection, createdBy);
                for (ColumnDescriptor column : projection.getColumns()) {
                    verify(store.getColumnReader(column), spec, column.getPath()[0], firstRow, rowGroup.getRowCount());
                }
                firstRow += rowGroup.getRowCount();
            }
        }
        if (firstRow != spec.rows()) {
            throw new WrongBytesException(spec.key() + ": " + firstRow + " rows, expected " + spec.rows());
        }
        return neededBytes(footer, projection, file.getLength());
    }

    /**
     * Spark's filter of q01's kind: {@code flag <> 'Z' and day <= last day - 60}. Neither drops a row group or a
     * page (every page holds days before the cut and no flag is Z), but both make parquet-java read the two
     * columns' dictionaries and page indexes first.
     */
    private static ParquetReadOptions options() {
        return ParquetReadOptions.builder(new PlainParquetConfiguration())
                .withRecordFilter(FilterCompat.get(FilterApi.and(
                        FilterApi.notEq(FilterApi.binaryColumn("flag"), Binary.fromString("Z")),
                        FilterApi.ltEq(
                                FilterApi.intColumn("day"),
                                FilteredParquetSpec.FIRST_DAY + FilteredParquetSpec.DAYS - 60))))
                .useDictionaryFilter(true)
                .useStatsFilter(true)
                .useColumnIndexFilter(true)
                .withUseHadoopVectoredIo(true)
                .build();
    }

    private static void verify(ColumnReader values, FilteredParquetSpec spec, String name, long firstRow, long count)
            throws WrongBytesException {
        for (long i = 0; i < count; i++) {
            long row = firstRow + i;
            Object expected = spec.value(name, row);
            Object actual = expected instanceof Long
                    ? (Object) values.getLong()
                    : expected instanceof Double
                            ? (Object) values.getDouble()
                            : expected instanceof Integer
                                    ? (Object) values.getInteger()
                                    : values.getBinary().toStringUsingUTF8();
            if (!expected.equals(actual)) {
                throw new WrongBytesException(spec.key() + ": wrong value in column " + name + " at row " + row + ": "
                        + actual + ", expected " + expected);
            }
            values.consume();
        }
    }

    /** The footer (from the end of whatever precedes it), the projected chunks and their page indexes. */
    private static long neededBytes(ParquetMetadata footer, MessageType projection, long fileLength) {
        long footerStart = 0;
        long needed = 0;
        for (BlockMetaData block : footer.getBlocks()) {
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                footerStart = Math.max(footerStart, chunk.getStartingPos() + chunk.getTotalSize());
                footerStart = Math.max(footerStart, ParquetScan.end(chunk.getColumnIndexReference()));
                footerStart = Math.max(footerStart, ParquetScan.end(chunk.getOffsetIndexReference()));
                if (projection.containsPath(chunk.getPath().toArray())) {
                    needed += chunk.getTotalSize()
                            + length(chunk.getColumnIndexReference())
                            + length(chunk.getOffsetIndexReference());
                }
            }
        }
        return fileLength - footerStart + needed;
    }

    private static long length(IndexReference index) {
        return index == null ? 0 : index.getLength();
    }
}
