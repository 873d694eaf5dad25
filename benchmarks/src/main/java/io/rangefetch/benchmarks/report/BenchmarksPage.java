package io.rangefetch.benchmarks.report;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code BENCHMARKS.md} and its chart: the latest results, the command that made them and the machine they
 * ran on. Each run replaces both files, so the comparison always describes one run; the resilience part at
 * the end of the page ({@link ResiliencePage}), written by scenario runs, is kept as it was.
 */
public final class BenchmarksPage {

    public static final String PAGE = "BENCHMARKS.md";
    public static final String CHART = "benchmarks-time.png";

    private BenchmarksPage() {}

    /** Writes the page and the chart into {@code directory} (created if missing); returns the page. */
    public static Path write(Path directory, RunDescription run, List<SummaryRow> rows) throws IOException {
        requireNonNull(run, "run is null");
        Files.createDirectories(requireNonNull(directory, "directory is null"));
        ResultChart.writePng(directory.resolve(CHART), rows, "Median time per workload (lower is better)");
        MarkdownReport report = new MarkdownReport(run, rows);
        StringBuilder page = new StringBuilder();
        page.append("# Benchmarks\n\n");
        page.append("Rangefetch against the streams users run today, on the same S3 server behind the same ")
                .append("network-shaping proxy. Written by the scenario runner (`io.rangefetch.benchmarks.Bench`); ")
                .append("run it again to replace this page.\n\n");
        page.append("Latest run: ").append(run.started()).append(", with\n\n```sh\n").append(run.command())
                .append("\n```\n\n");
        page.append("![Median time per workload and reader](").append(CHART).append(")\n\n");
        page.append(report.table()).append('\n');
        page.append("## How to read it\n\n").append(report.notes()).append('\n');
        page.append("## Machine\n\n| | |\n|---|---|\n");
        for (Map.Entry<String, String> fact : run.machine().entrySet()) {
            page.append("| ").append(fact.getKey()).append(" | ").append(fact.getValue()).append(" |\n");
        }
        page.append("| server | ").append(run.server()).append(" |\n");
        page.append("| network | ").append(run.network()).append(" |\n");
        page.append("| data scale | ").append(run.scale()).append(" |\n");
        Path file = directory.resolve(PAGE);
        String resilience = Files.exists(file) ? ResiliencePage.of(Files.readString(file, UTF_8)) : "";
        if (!resilience.isEmpty()) {
            page.append('\n').append(resilience);
        }
        Files.writeString(file, page, UTF_8);
        return file;
    }
}
