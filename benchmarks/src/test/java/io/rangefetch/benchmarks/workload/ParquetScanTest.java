package io.rangefetch.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.benchmarks.data.ParquetSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetScanTest {

    @TempDir
    Path dir;

    @Test
    void generatedFilesHaveTheAskedRowGroupsAndPredictableSize() throws Exception {
        ParquetSpec spec = ParquetSpec.ofSize("wide.parquet", 2_000_000, 4, 1);
        Path file = write(spec);

        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            assertThat(reader.getRowGroups()).hasSize(4);
            assertThat(reader.getFileMetaData().getSchema().getColumns()).hasSize(ParquetSpec.COLUMNS);
        }
        // plain, uncompressed values plus a little for headers, statistics and the footer
        assertThat(Files.size(file)).isBetween(spec.approximateSize(), spec.approximateSize() * 11 / 10);
    }

    @Test
    void aScanChecksEveryValueAndCountsTheFooterAndTheChunksItNeeded() throws Exception {
        ParquetSpec spec = ParquetSpec.ofSize("wide.parquet", 1_000_000, 4, 1);
        Path file = write(spec);

        long all = ParquetScan.scan(new LocalInputFile(file), spec, List.of());
        long projected = ParquetScan.scan(new LocalInputFile(file), spec, ProjectionWorkload.COLUMNS);

        assertThat(all).isLessThanOrEqualTo(Files.size(file) - 4).isGreaterThan(spec.approximateSize());
        // three of sixteen equally wide columns, plus the same footer
        long footer = all - spec.approximateSize();
        assertThat(projected).isBetween(spec.approximateSize() * 3 / 16, spec.approximateSize() * 3 / 16 + 2 * footer);
    }

    @Test
    void valuesFromAnotherGeneratorAreWrongBytes() throws Exception {
        ParquetSpec spec = ParquetSpec.ofSize("wide.parquet", 100_000, 1, 1);
        Path file = write(spec);
        ParquetSpec otherSeed = new ParquetSpec(spec.key(), spec.rows(), 1, 2);

        assertThatThrownBy(() -> ParquetScan.scan(new LocalInputFile(file), otherSeed, List.of()))
                .isInstanceOf(WrongBytesException.class)
                .hasMessageContaining("wrong value in column c00 at row 0");
    }

    private Path write(ParquetSpec spec) throws Exception {
        Path file = dir.resolve(spec.rows() + "-" + spec.rowGroups() + ".parquet");
        spec.writeTo(file, bytes -> {});
        return file;
    }
}
