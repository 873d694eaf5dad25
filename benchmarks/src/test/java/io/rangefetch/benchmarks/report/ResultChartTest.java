package io.rangefetch.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultChartTest {

    @TempDir
    Path directory;

    /**
     * A reader that ran a workload the first reader did not (iceberg-scan runs only on FileIO readers) still
     * draws: every series lists every workload, a missing time as a gap.
     */
    @Test
    void readersWithDifferentWorkloadsDrawSideBySide() throws Exception {
        List<ResultRow> rows = List.of(
                row("projection", "Rangefetch", 0.2),
                row("projection", "S3FileIO", 0.7),
                row("iceberg-scan", "S3FileIO", 12.0),
                row("iceberg-scan", "RangefetchS3FileIO", 2.9));
        Path file = directory.resolve("chart.png");

        ResultChart.writePng(file, rows, "median time");

        BufferedImage image = ImageIO.read(Files.newInputStream(file));
        assertThat(image.getWidth()).isPositive();
        assertThat(ResultChart.build(rows, "median time").getSeriesMap())
                .containsOnlyKeys("Rangefetch", "S3FileIO", "RangefetchS3FileIO");
        List<Number> rangefetch = new ArrayList<Number>(ResultChart.build(rows, "median time")
                .getSeriesMap()
                .get("Rangefetch")
                .getYData());
        assertThat(rangefetch).containsExactly(0.2, null);
    }

    private static ResultRow row(String workload, String reader, double seconds) {
        return TestRows.ok(workload, reader, seconds, 1, 0);
    }
}
