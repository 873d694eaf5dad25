package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.report.MarkdownTable.Column;
import io.rangefetch.benchmarks.report.RunDescription.Item;
import io.rangefetch.benchmarks.resilience.Scenario;
import io.rangefetch.benchmarks.run.FaultPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One resilience scenario's results as markdown: what was injected, the target, the command and date, and a
 * table of every reader beside its clean run. The rate-limit table adds request rates; the slow-first-byte
 * table adds the responses held back and the read latencies.
 */
public final class ResilienceReport {

    private final RunDescription run;
    private final Scenario scenario;
    private final FaultPlan faults;
    private final List<ResultRow> rows;

    /** {@code rows} may hold other scenarios' rows: only this one's are shown. */
    public ResilienceReport(RunDescription run, Scenario scenario, FaultPlan faults, List<ResultRow> rows) {
        this.run = requireNonNull(run, "run is null");
        this.scenario = requireNonNull(scenario, "scenario is null");
        this.faults = requireNonNull(faults, "faults is null");
        this.rows = rows.stream()
                .filter(row -> row.scenario().equals(scenario.id()))
                .toList();
    }

    /** The subsection: a heading, what ran, the table and its notes. */
    public String section() {
        StringBuilder out = new StringBuilder();
        out.append("### ")
                .append(scenario.id())
                .append(": ")
                .append(scenario.title())
                .append("\n\n");
        out.append("Injected: ")
                .append(faults.describe())
                .append(". Network: ")
                .append(run.network())
                .append(". Rangefetch runs with `")
                .append(scenario.feature())
                .append("` on and off; other readers as their users run them. Target for Rangefetch with `")
                .append(scenario.feature())
                .append("=true`: ")
                .append(scenario.target())
                .append(".\n\n");
        out.append("Measured ")
                .append(run.started())
                .append(", with\n\n```sh\n")
                .append(run.command())
                .append("\n```\n\n");
        out.append(table()).append('\n');
        out.append(notes());
        return out.toString();
    }

    /** One line per (workload, reader), with a header. */
    public String table() {
        List<Column> columns = new ArrayList<>(List.of(
                MarkdownTable.WORKLOAD,
                Column.words("reader", this::readerName),
                Column.figures("clean time", row -> Figures.seconds(row.cleanSeconds())),
                Column.figures("time", MarkdownTable::timeOrFailed),
                Column.figures("×clean", row -> Figures.ratio(row.vsClean())),
                Column.figures("503s received", row -> Figures.count(row.slowDowns())),
                Column.figures("GETs", row -> Figures.count(row.gets()))));
        if (scenario == Scenario.RATE_LIMIT) {
            columns.add(Column.figures("clean GETs/s", row -> rate(row.cleanGetsPerSecond())));
            columns.add(Column.figures("GETs/s", row -> rate(row.getsPerSecond())));
        }
        if (scenario == Scenario.SLOW_FIRST_BYTE) {
            columns.add(Column.figures("GETs held back", row -> Figures.count(row.delayedFirstBytes())));
            columns.add(Column.figures("read median", row -> millis(row.readMedianMillis())));
            columns.add(Column.figures("read p99", row -> millis(row.readP99Millis())));
        }
        columns.add(Column.words("bytes", MarkdownTable::verified));
        columns.add(Column.words("target", row -> row.target() == null ? Figures.MISSING : row.target()));
        return MarkdownTable.of(columns, rows);
    }

    private String notes() {
        StringBuilder out = new StringBuilder();
        out.append("- Medians of ")
                .append(run.runs())
                .append(" measured run(s) after ")
                .append(run.warmups())
                .append(" warm-up run(s), each with a fresh reader session; the clean time is the same reader's on ")
                .append("the same workload without faults, measured in the same command. 503s received and GETs are ")
                .append("the proxy's counts (a GET answered 503 is a GET); bytes \"verified\": every run's bytes ")
                .append("or decoded values were checked against the generator.\n");
        if (scenario == Scenario.SLOW_FIRST_BYTE) {
            out.append("- Read latency: each positioned read call's time, the measured runs' reads taken together; ")
                    .append("p99 is the nearest-rank 99th percentile.\n");
        }
        for (Item workload : run.workloads()) {
            if (scenario.workloads().contains(workload.name())) {
                out.append("- ")
                        .append(workload.name())
                        .append(": ")
                        .append(workload.description())
                        .append('\n');
            }
        }
        List<String> shown = rows.stream().map(this::readerName).toList();
        for (Item reader : run.readers()) {
            if (shown.contains(reader.name())) {
                out.append("- ")
                        .append(reader.name())
                        .append(": ")
                        .append(reader.description())
                        .append('\n');
            }
        }
        for (ResultRow row : rows) {
            if (row.failed()) {
                out.append("- **FAILED** ")
                        .append(readerName(row))
                        .append(" · ")
                        .append(row.workload())
                        .append(": ")
                        .append(row.failure().replace('\n', ' '))
                        .append('\n');
            }
        }
        return out.toString();
    }

    /** The reader as it ran: Rangefetch's name carries the feature's setting. */
    private String readerName(ResultRow row) {
        return row.feature() == null ? row.reader() : row.reader() + ", " + scenario.feature() + "=" + row.feature();
    }

    private static String rate(Double perSecond) {
        return perSecond == null ? Figures.MISSING : String.format(Locale.ROOT, "%.0f", perSecond);
    }

    private static String millis(Double millis) {
        return millis == null ? Figures.MISSING : String.format(Locale.ROOT, "%.0f ms", millis);
    }
}
