package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.report.MarkdownTable.Column;
import io.rangefetch.benchmarks.report.RunDescription.Item;
import io.rangefetch.benchmarks.workload.LowerBound;
import java.util.List;

/** The results as markdown: the table, and the notes that say how to read it. */
public final class MarkdownReport {

    static final String FALLBACK_MARK = " †";

    private final RunDescription run;
    private final List<ResultRow> rows;

    public MarkdownReport(RunDescription run, List<ResultRow> rows) {
        this.run = requireNonNull(run, "run is null");
        this.rows = List.copyOf(requireNonNull(rows, "rows is null"));
    }

    /** One line per (workload, reader), with a header. */
    public String table() {
        return MarkdownTable.of(
                List.of(
                        Column.words("workload", row -> row.workload() + (row.vectoredFallback() ? FALLBACK_MARK : "")),
                        MarkdownTable.READER,
                        Column.figures("median time", MarkdownTable::timeOrFailed),
                        Column.figures("GETs", row -> Figures.count(row.gets())),
                        Column.figures("HEADs", row -> Figures.count(row.heads())),
                        Column.figures("MB transferred", row -> Figures.megabytes(row.transferredBytes())),
                        Column.figures("MB needed", row -> Figures.megabytes(row.neededBytes())),
                        Column.figures("heap peak MB", row -> Figures.megabytes(row.heapBytes())),
                        Column.figures("×" + run.referenceReader(), row -> Figures.ratio(row.vsReference())),
                        Column.figures("×ideal", row -> Figures.ratio(row.vsIdeal()))),
                rows);
    }

    /** What the columns mean, the ideal's formula, the workloads and readers, and any failures. */
    public String notes() {
        StringBuilder out = new StringBuilder();
        out.append("- Server: ")
                .append(run.server())
                .append(". Network: ")
                .append(run.network())
                .append(".\n");
        out.append("- Each figure is the median of ")
                .append(run.runs())
                .append(" measured run(s), after ")
                .append(run.warmups())
                .append(" warm-up run(s); every run opens a fresh reader session (clients, ")
                .append("caches, pools), whose creation is not timed.\n");
        out.append("- GETs, HEADs and MB transferred (response bodies) are what the proxy in front of the server ")
                .append("counted; MB needed is what the workload itself asked for. MB are 10^6 bytes.\n");
        out.append("- Heap peak: the sum of the heap pools' peak usage during the run, less the heap in use ")
                .append("right after a GC just before it.\n");
        out.append("- ×")
                .append(run.referenceReader())
                .append(": median time over ")
                .append(run.referenceReader())
                .append("'s on the same workload; on a workload ")
                .append(run.referenceReader())
                .append(" does not run, over the first reader listed that runs it (RangefetchS3FileIO on ")
                .append("iceberg-scan, which needs an Iceberg FileIO).\n");
        if (run.networkModelled()) {
            out.append("- ×ideal: median time over a lower bound from the proxy's network model: ")
                    .append("round trips that must wait for an earlier answer × first-byte delay + MB needed / ")
                    .append("min(total rate, C × per-connection rate), with C = ")
                    .append(LowerBound.PARALLEL_CONNECTIONS)
                    .append(" connections where reads are independent, or the number of threads issuing ")
                    .append("dependent reads. Below 1× a reader beat the bound's assumptions: it fetched ahead ")
                    .append("for reads the bound counts as waiting for each other. Per workload:\n");
            for (Item workload : run.workloads()) {
                out.append("  - ")
                        .append(workload.name())
                        .append(": ")
                        .append(workload.description())
                        .append('\n');
            }
        } else {
            out.append("- ×ideal: \"-\": with no modelled network a lower bound says nothing.\n");
            for (Item workload : run.workloads()) {
                out.append("- ")
                        .append(workload.name())
                        .append(": ")
                        .append(workload.description())
                        .append('\n');
            }
        }
        if (rows.stream().anyMatch(ResultRow::vectoredFallback)) {
            out.append("- ")
                    .append(FALLBACK_MARK.strip())
                    .append(" the reader has no vectored read of its own: ")
                    .append("the ranges were read one after another with its positioned reads.\n");
        }
        out.append("- Readers:\n");
        for (Item reader : run.readers()) {
            out.append("  - ")
                    .append(reader.name())
                    .append(": ")
                    .append(reader.description())
                    .append('\n');
        }
        for (ResultRow row : rows) {
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
        return out.toString();
    }
}
