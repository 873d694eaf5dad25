package io.rangefetch.benchmarks.report;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.ListingShape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code BENCHMARKS.md} and its chart: the latest results, the command that made them and the machine they
 * ran on. Each run replaces both files, so the comparison always describes one run; the resilience part at
 * the end of the page ({@link ResiliencePage}), written by scenario runs, is kept as it was, and so are the TPC-H part
 * under the title ({@link TpchPage}) and the listing
 * sections, one per listing layout (above the resilience part; the default layout's between {@link #LISTING_START}
 * and {@link #LISTING_END}, another's between markers naming it), but the one of the layout the run measured.
 */
public final class BenchmarksPage {

    public static final String PAGE = "BENCHMARKS.md";
    public static final String CHART = "benchmarks-time.png";

    static final String LISTING_START = "<!-- listing: written by ./bench --workloads listing -->";
    static final String LISTING_END = "<!-- /listing -->";
    private static final Pattern OTHER_LISTING =
            Pattern.compile("<!-- listing (\\S+): written by [^\\n]*? -->(.*?)<!-- /listing \\1 -->", Pattern.DOTALL);

    private BenchmarksPage() {}

    /** Writes the page and the chart into {@code directory} (created if missing); returns the page. */
    public static Path write(Path directory, RunDescription run, List<ResultRow> rows) throws IOException {
        return write(directory, run, rows, Optional.empty());
    }

    /**
     * Writes the page and the chart into {@code directory} (created if missing), with {@code listing} as the
     * listing section of its layout and the page's earlier sections of other layouts; returns the page.
     */
    public static Path write(Path directory, RunDescription run, List<ResultRow> rows, Optional<ListingReport> listing)
            throws IOException {
        requireNonNull(run, "run is null");
        requireNonNull(listing, "listing is null");
        Files.createDirectories(requireNonNull(directory, "directory is null"));
        boolean charted = rows.stream().anyMatch(row -> !row.failed());
        if (charted) { // a run of the listing workload alone has no reader to chart
            ResultChart.writePng(directory.resolve(CHART), rows, "Median time per workload (lower is better)");
        }
        MarkdownReport report = new MarkdownReport(run, rows);
        StringBuilder page = new StringBuilder();
        page.append("# Benchmarks\n\n");
        page.append("Rangefetch against the streams users run today, on the same S3 server behind the same ")
                .append("network-shaping proxy. Written by the scenario runner (`io.rangefetch.benchmarks.Bench`); ")
                .append("run it again to replace this page.\n\n");
        page.append("Latest run: ")
                .append(run.started())
                .append(", with\n\n```sh\n")
                .append(run.command())
                .append("\n```\n\n");
        if (charted) {
            page.append("![Median time per workload and reader](").append(CHART).append(")\n\n");
        }
        page.append(report.table()).append('\n');
        page.append("## How to read it\n\n").append(report.notes()).append('\n');
        page.append("## Machine\n\n| | |\n|---|---|\n");
        for (Map.Entry<String, String> fact : run.machine().entrySet()) {
            page.append("| ")
                    .append(fact.getKey())
                    .append(" | ")
                    .append(fact.getValue())
                    .append(" |\n");
        }
        page.append("| server | ").append(run.server()).append(" |\n");
        page.append("| network | ").append(run.network()).append(" |\n");
        page.append("| data scale | ").append(run.scale()).append(" |\n");
        Path file = directory.resolve(PAGE);
        String earlier = Files.exists(file) ? Files.readString(file, UTF_8) : "";
        Map<String, String> sections = listingSections(earlier);
        listing.ifPresent(measured -> sections.put(measured.shape(), measured.section()));
        sections.forEach((shape, section) -> page.append('\n')
                .append(listingStart(shape))
                .append('\n')
                .append(section.endsWith("\n") ? section : section + "\n")
                .append(listingEnd(shape))
                .append('\n'));
        String resilience = ResiliencePage.of(earlier);
        if (!resilience.isEmpty()) {
            page.append('\n').append(resilience);
        }
        Files.writeString(file, TpchPage.withPart(page.toString(), TpchPage.of(earlier)), UTF_8);
        return file;
    }

    /** The listing sections of {@code page}, by layout: the default layout's first, then the others by name. */
    static Map<String, String> listingSections(String page) {
        String defaultShape = ListingShape.BENCHMARK.id();
        Map<String, String> sections = new TreeMap<>(Comparator.comparing((String shape) -> !shape.equals(defaultShape))
                .thenComparing(Comparator.naturalOrder()));
        int start = page.indexOf(LISTING_START);
        int end = page.indexOf(LISTING_END);
        if (start >= 0 && end > start) {
            sections.put(
                    defaultShape,
                    page.substring(start + LISTING_START.length(), end).strip() + "\n");
        }
        Matcher other = OTHER_LISTING.matcher(page);
        while (other.find()) {
            sections.put(other.group(1), other.group(2).strip() + "\n");
        }
        return sections;
    }

    static String listingStart(String shape) {
        return shape.equals(ListingShape.BENCHMARK.id())
                ? LISTING_START
                : "<!-- listing " + shape + ": written by ./bench --workloads listing --listing-layout " + shape
                        + " -->";
    }

    static String listingEnd(String shape) {
        return shape.equals(ListingShape.BENCHMARK.id()) ? LISTING_END : "<!-- /listing " + shape + " -->";
    }
}
