package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.listing.ListingResults;
import io.rangefetch.benchmarks.listing.ListingRow;
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
    private final List<SummaryRow> comparison;

    /** @param comparison the comparison's rows, of which list-then-read's and small-files' are shown */
    public ListingReport(RunDescription run, ListingResults listing, List<SummaryRow> comparison) {
        this.run = requireNonNull(run, "run is null");
        this.listing = requireNonNull(listing, "listing is null");
        Set<String> listedThenRead = comparison.stream()
                .filter(row -> row.workload().equals(Workloads.LIST_THEN_READ))
                .map(SummaryRow::reader)
                .collect(Collectors.toSet());
        this.comparison = comparison.stream()
                .filter(row -> listedThenRead.contains(row.reader()))
                .filter(row -> row.workload().equals("small-files") || row.workload().equals(Workloads.LIST_THEN_READ))
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
        out.append("Objects: ").append(listing.layout()).append(". Measured ").append(run.started())
                .append(", with\n\n```sh\n").append(run.command()).append("\n```\n\n");
        out.append(table()).append('\n');
        out.append("- Medians of ").append(run.runs()).append(" measured run(s) after ").append(run.warmups())
                .append(" warm-up run(s), each with fresh clients. LIST calls and GETs are what the proxy counted; ")
                .append("objects: what the listing found, checked against what was written (keys, lengths, ETags, ")
                .append("in key order) in every run. ×Rangefetch: median time over Rangefetch's on the same set.\n");
        out.append("- Targets (issue 15), judged on Rangefetch's rows and reported, never asserted: the first and ")
                .append("last partitions in at most 3 LIST calls; never more calls than the better baseline; at ")
                .append("least 10× faster than one listing per location on the sets of a few partitions (first-last, ")
                .append("random). Network: ").append(run.network()).append(".\n");
        for (Item set : listing.sets()) {
            out.append("- ").append(set.name()).append(": ").append(set.description()).append('\n');
        }
        for (Item strategy : listing.strategies()) {
            out.append("- ").append(strategy.name()).append(": ").append(strategy.description()).append('\n');
        }
        for (ListingRow row : listing.rows()) {
            if (row.failed()) {
                out.append("- **FAILED** ").append(row.strategy()).append(" · ").append(row.set()).append(": ")
                        .append(row.failure().replace('\n', ' ')).append('\n');
            }
        }
        if (!comparison.isEmpty()) {
            out.append("\n### List, then read\n\n").append(comparisonTable()).append('\n');
            out.append("- list-then-read lists small-files' directory with `StreamFactory.list`, then opens each ")
                    .append("file with `ListedObject.openOptions()` (the listing's length and ETag) and reads it as ")
                    .append("small-files does, which opens each file with the length and ETag it was written with. ")
                    .append("Medians, as in the table at the top.\n");
        }
        return out.toString();
    }

    /** One line per (wanted set, strategy), with a header. */
    public String table() {
        StringBuilder out = new StringBuilder();
        out.append("| wanted set | strategy | LIST calls | median time | ×Rangefetch | objects | result | target |\n");
        out.append("|---|---|---:|---:|---:|---:|---|---|\n");
        for (ListingRow row : listing.rows()) {
            String target = row.target() == null ? Figures.MISSING : row.target();
            out.append(row.failed()
                    ? Figures.row(row.set(), row.strategy(), "-", "**FAILED**", "-", "-", "**FAILED**", target)
                    : Figures.row(row.set(), row.strategy(), Figures.count(row.lists()), Figures.seconds(row.seconds()),
                            Figures.ratio(row.vsRangefetch()), Figures.count(row.objects()), "verified", target));
        }
        return out.toString();
    }

    private String comparisonTable() {
        StringBuilder out = new StringBuilder();
        out.append("| workload | reader | median time | LIST calls | GETs | HEADs |\n");
        out.append("|---|---|---:|---:|---:|---:|\n");
        for (SummaryRow row : comparison) {
            out.append(row.failed()
                    ? Figures.row(row.workload(), row.reader(), "**FAILED**", "-", "-", "-")
                    : Figures.row(row.workload(), row.reader(), Figures.seconds(row.seconds()), Figures.count(row.lists()),
                            Figures.count(row.gets()), Figures.count(row.heads())));
        }
        return out.toString();
    }
}
