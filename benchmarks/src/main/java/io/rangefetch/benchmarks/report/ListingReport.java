package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.listing.ListingResults;
import io.rangefetch.benchmarks.report.MarkdownTable.Column;
import io.rangefetch.benchmarks.report.RunDescription.Item;
import io.rangefetch.benchmarks.workload.Workloads;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The listing workload's results as markdown: per wanted set and strategy, the LIST calls and the time, with the
 * issue's targets judged on Rangefetch's rows; then, if the run read small-files both ways, the list-then-read
 * rows beside the plain small-files rows of the same readers.
 */
public final class ListingReport {

    private final RunDescription run;
    private final ListingResults listing;
    private final List<ResultRow> comparison;

    /** @param comparison the comparison's rows, of which list-then-read's and small-files' are shown */
    public ListingReport(RunDescription run, ListingResults listing, List<ResultRow> comparison) {
        this.run = requireNonNull(run, "run is null");
        this.listing = requireNonNull(listing, "listing is null");
        Set<String> listedThenRead = comparison.stream()
                .filter(row -> row.workload().equals(Workloads.LIST_THEN_READ))
                .map(ResultRow::reader)
                .collect(Collectors.toSet());
        this.comparison = comparison.stream()
                .filter(row -> listedThenRead.contains(row.reader()))
                .filter(row ->
                        row.workload().equals("small-files") || row.workload().equals(Workloads.LIST_THEN_READ))
                .toList();
    }

    /** The layout listed, at full scale, as the runner writes it ({@code 2400x10}): one section per layout. */
    public String shape() {
        return listing.shape();
    }

    /** The section: a heading naming the layout, what ran, the tables and their notes. */
    public String section() {
        StringBuilder out = new StringBuilder();
        out.append("## Listing many partitions: ").append(listing.shape()).append("\n\n");
        out.append("Objects: ")
                .append(listing.layout())
                .append(". Measured ")
                .append(run.started())
                .append(", with\n\n```sh\n")
                .append(run.command())
                .append("\n```\n\n");
        out.append(table()).append('\n');
        out.append("- Medians of ")
                .append(run.runs())
                .append(" measured run(s) after ")
                .append(run.warmups())
                .append(" warm-up run(s), each with fresh clients. LIST calls and GETs are what the proxy counted; ")
                .append("objects: what the listing found, checked against what was written (keys, lengths, ETags, ")
                .append("in key order) in every run. ×Rangefetch: median time over Rangefetch's on the same set.\n");
        out.append("- Targets (issue 15), judged on Rangefetch's rows and reported, never asserted: the first and ")
                .append("last partitions in at most 3 LIST calls; never more calls than the better baseline; at ")
                .append("least 10× faster than one listing per location on the sets of a few partitions (first-last, ")
                .append("random). Network: ")
                .append(run.network())
                .append(".\n");
        for (Item set : listing.sets()) {
            out.append("- ")
                    .append(set.name())
                    .append(": ")
                    .append(set.description())
                    .append('\n');
        }
        for (Item strategy : listing.strategies()) {
            out.append("- ")
                    .append(strategy.name())
                    .append(": ")
                    .append(strategy.description())
                    .append('\n');
        }
        for (ResultRow row : listing.rows()) {
            if (row.failed()) {
                out.append("- **FAILED** ")
                        .append(row.reader())
                        .append(" · ")
                        .append(row.workload())
                        .append(": ")
                        .append(row.failure().replace('\n', ' '))
                        .append('\n');
            }
        }
        if (!comparison.isEmpty()) {
            out.append("\n### List, then read\n\n").append(comparisonTable()).append('\n');
            out.append("- list-then-read lists small-files' directory with `StreamFactory.list`, then opens each ")
                    .append("file with `OpenOptions.of(ListedObject)` (the listing's length and ETag) and reads it as ")
                    .append("small-files does, which opens each file with the length and ETag it was written with. ")
                    .append("Medians, as in the table at the top.\n");
        }
        return out.toString();
    }

    /** One line per (wanted set, strategy), with a header. */
    public String table() {
        return MarkdownTable.of(
                List.of(
                        Column.words("wanted set", ResultRow::workload),
                        Column.words("strategy", ResultRow::reader),
                        Column.figures("LIST calls", row -> Figures.count(row.lists())),
                        Column.figures("median time", MarkdownTable::timeOrFailed),
                        Column.figures("×Rangefetch", row -> Figures.ratio(row.vsReference())),
                        Column.figures("objects", row -> Figures.count(row.neededBytes())),
                        Column.words("result", MarkdownTable::verified),
                        Column.words("target", row -> row.target() == null ? Figures.MISSING : row.target())),
                listing.rows());
    }

    private String comparisonTable() {
        return MarkdownTable.of(
                List.of(
                        MarkdownTable.WORKLOAD,
                        MarkdownTable.READER,
                        Column.figures("median time", MarkdownTable::timeOrFailed),
                        Column.figures("LIST calls", row -> Figures.count(row.lists())),
                        Column.figures("GETs", row -> Figures.count(row.gets())),
                        Column.figures("HEADs", row -> Figures.count(row.heads()))),
                comparison);
    }
}
