package io.rangefetch.benchmarks.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.benchmarks.readers.BenchmarkStream;
import io.rangefetch.benchmarks.readers.IcebergS3FileIOReader;
import io.rangefetch.benchmarks.readers.IcebergS3FileIOReader.Variant;
import io.rangefetch.benchmarks.readers.RangefetchReader;
import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.workload.IcebergScanWorkload;
import io.rangefetch.benchmarks.workload.Workload.Outcome;
import io.rangefetch.benchmarks.workload.WrongBytesException;
import java.util.Optional;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.parquet.io.InputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The table built in memory, planned as the preparer plans it, and queried by the workload. */
class IcebergTablePreparerTest {

    private static final String LOCATION = "s3://bucket/table";

    private final IcebergTableSpec spec = new IcebergTableSpec("table", 8, 88_000, 4, 2);
    private final InMemoryFileIO io = new InMemoryFileIO();

    @AfterEach
    void close() {
        io.close();
    }

    @Test
    void theQueryReadsHalfTheFilesWithTheirDeletesAndGivesTheGeneratorsAnswer() throws Exception {
        String metadata = IcebergTablePreparer.build(spec, LOCATION, io);
        StoredTable table = IcebergTablePreparer.plan(spec, metadata, io);

        assertThat(metadata).startsWith(LOCATION + "/metadata/v").endsWith(".metadata.json");
        assertThat(table.scannedDataFiles()).isEqualTo(4);
        assertThat(table.scannedDeleteFiles()).isEqualTo(2);
        // three of eleven 8-byte columns of the kept files, at least
        assertThat(table.neededBytes()).isGreaterThan(4L * 1000 * 3 * Long.BYTES);

        Outcome outcome = new IcebergScanWorkload(spec, table).run(session(io));
        assertThat(outcome.neededBytes()).isEqualTo(table.neededBytes());
    }

    @Test
    void anAnswerOtherThanTheGeneratorsFailsAsWrongBytes() throws Exception {
        StoredTable table = IcebergTablePreparer.plan(spec, IcebergTablePreparer.build(spec, LOCATION, io), io);
        IcebergTableSpec other = new IcebergTableSpec("table", 8, 88_000 + 88, 4, 2);

        assertThatThrownBy(() -> new IcebergScanWorkload(other, table).run(session(io)))
                .isInstanceOf(WrongBytesException.class)
                .hasMessageContaining("the generator says");
    }

    @Test
    void theWorkloadRunsOnFileIOsOnly() {
        StoredTable table = new StoredTable(LOCATION + "/metadata/v1.metadata.json", 4, 2, 1);
        IcebergScanWorkload workload = new IcebergScanWorkload(spec, table);

        for (Variant variant : Variant.values()) {
            assertThat(workload.runsOn(new IcebergS3FileIOReader(variant)))
                    .as(variant.name())
                    .isTrue();
        }
        assertThat(workload.runsOn(new RangefetchReader())).isFalse();
    }

    private static ReaderSession session(FileIO io) {
        return new ReaderSession() {
            @Override
            public BenchmarkStream open(String key, long length, Optional<String> etag) {
                throw new UnsupportedOperationException();
            }

            @Override
            public InputFile parquetFile(String key, long length, Optional<String> etag) {
                throw new UnsupportedOperationException();
            }

            @Override
            public FileIO icebergFileIO() {
                return io;
            }

            @Override
            public void close() {}
        };
    }
}
