package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler.LegendLayout;
import org.knowm.xchart.style.Styler.LegendPosition;

/**
 * A grouped bar chart of median time per workload, one bar per reader, as PNG (xchart's SVG draws every
 * glyph as a path: half a megabyte for one chart). A logarithmic axis when the times span more than {@value #LOG_SPREAD}×,
 * where a linear one would flatten the fast bars. FAILED rows get no bar.
 */
public final class ResultChart {

    static final double LOG_SPREAD = 20;

    private ResultChart() {}

    /** Writes the chart to {@code file}. */
    public static void writePng(Path file, List<ResultRow> rows, String title) throws IOException {
        requireNonNull(file, "file is null");
        CategoryChart chart = build(rows, title);
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapFormat.PNG);
        }
    }

    static CategoryChart build(List<ResultRow> rows, String title) {
        System.setProperty("java.awt.headless", "true"); // drawing needs no display
        Set<String> workloads = new LinkedHashSet<>();
        Set<String> readers = new LinkedHashSet<>();
        double fastest = Double.MAX_VALUE;
        double slowest = 0;
        for (ResultRow row : rows) {
            workloads.add(row.workload());
            readers.add(row.reader());
            if (!row.failed()) {
                fastest = Math.min(fastest, row.seconds());
                slowest = Math.max(slowest, row.seconds());
            }
        }
        boolean logarithmic = fastest > 0 && slowest / fastest > LOG_SPREAD;
        CategoryChart chart = new CategoryChartBuilder()
                .width(Math.max(900, 160 * workloads.size()))
                .height(440)
                .title(title)
                .xAxisTitle("workload")
                .yAxisTitle(logarithmic ? "median time, s (log scale)" : "median time, s")
                .build();
        chart.getStyler().setLegendPosition(LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(LegendLayout.Horizontal);
        chart.getStyler().setYAxisLogarithmic(logarithmic);
        if (logarithmic) {
            // bars start from the axis minimum, which is 0 unless set: log(0) is not drawable
            chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(fastest))));
        }
        chart.getStyler().setOverlapped(false);
        for (String reader : readers) {
            // every series lists every workload (xchart draws series side by side by index); a workload the reader
            // has no time for is a null: a gap, not a zero (which a log axis refuses)
            List<String> categories = new ArrayList<>(workloads);
            List<Double> seconds = new ArrayList<>();
            boolean any = false;
            for (String workload : workloads) {
                Double time = rows.stream()
                        .filter(row ->
                                row.reader().equals(reader) && row.workload().equals(workload) && !row.failed())
                        .findFirst()
                        .map(ResultRow::seconds)
                        .orElse(null);
                seconds.add(time);
                any |= time != null;
            }
            if (any) {
                chart.addSeries(reader, categories, seconds);
            }
        }
        return chart;
    }
}
