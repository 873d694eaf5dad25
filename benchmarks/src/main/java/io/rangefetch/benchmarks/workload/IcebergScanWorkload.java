package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.IcebergTableSpec;
import io.rangefetch.benchmarks.data.IcebergTableSpec.Answer;
import io.rangefetch.benchmarks.data.StoredTable;
import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import java.io.IOException;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * A query on a partitioned Iceberg table, as a plain Java engine runs it: the table opened with the reader's
 * FileIO from its metadata file, then {@link IcebergGenerics} selecting three of twelve columns with a filter
 * that prunes half the partitions. Iceberg reads the metadata file, the manifest list and the manifests, then
 * each remaining data file in turn (footer, then the selected columns' chunks of every row group) with the
 * position deletes that apply to it. The rows' count and a checksum of their values must equal what the
 * generator says; runs only on readers that are an Iceberg FileIO.
 */
public final class IcebergScanWorkload implements Workload {

    private final IcebergTableSpec spec;
    private final StoredTable table;
    private final Answer expected;

    public IcebergScanWorkload(IcebergTableSpec spec, StoredTable table) {
        this.spec = requireNonNull(spec, "spec is null");
        this.table = requireNonNull(table, "table is null");
        this.expected = spec.expected();
    }

    @Override
    public String name() {
        return "iceberg-scan";
    }

    @Override
    public String description() {
        return String.format(
                "a format-v2 Iceberg table of %d Parquet data files of about %.1f MB (%d columns, about %d"
                        + " row groups each) in %d partitions, position deletes on every fourth file: columns %s where %s"
                        + " (%d data files, %d delete files left after pruning) through IcebergGenerics with the reader's"
                        + " FileIO, row count and a checksum of every value checked",
                spec.files(),
                spec.fileBytes() / 1e6,
                IcebergTableSpec.COLUMNS,
                spec.rowGroups(),
                spec.partitions(),
                String.join(", ", IcebergTableSpec.SELECTED),
                spec.filter(),
                table.scannedDataFiles(),
                table.scannedDeleteFiles());
    }

    /**
     * Metadata file, manifest list, manifests (together), then per data file its footer and its chunks, the
     * files one after another as IcebergGenerics reads them.
     */
    @Override
    public LowerBound lowerBound() {
        return LowerBound.parallel(3 + 2 * table.scannedDataFiles());
    }

    @Override
    public boolean runsOn(ReaderUnderTest reader) {
        return reader.isIcebergFileIO();
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        Table opened =
                new BaseTable(new StaticTableOperations(table.metadataLocation(), session.icebergFileIO()), name());
        Answer answer = new Answer(0, 0);
        try (CloseableIterable<Record> rows = IcebergGenerics.read(opened)
                .select(IcebergTableSpec.SELECTED)
                .where(spec.filter())
                .build()) {
            for (Record row : rows) {
                answer = answer.plus(
                        (Long) row.getField(IcebergTableSpec.SELECTED.get(0)),
                        (Long) row.getField(IcebergTableSpec.SELECTED.get(1)),
                        (Long) row.getField(IcebergTableSpec.SELECTED.get(2)));
            }
        }
        if (!answer.equals(expected)) {
            throw new WrongBytesException(String.format(
                    "the query over %s gave %d rows with checksum %016x;" + " the generator says %d rows, %016x",
                    table.metadataLocation(), answer.rows(), answer.checksum(), expected.rows(), expected.checksum()));
        }
        return Outcome.needed(table.neededBytes());
    }
}
