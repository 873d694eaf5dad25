package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The one markdown table writer of every results table: a header, a rule aligning figures right and words left,
 * then a line per {@link ResultRow}, each cell read by its column. A family's table is its list of columns; what a
 * missing figure or a failed row shows is the columns' business ({@link Figures}, {@link #timeOrFailed}).
 */
public final class MarkdownTable {

    static final String FAILED = "**FAILED**";

    /**
     * One column.
     *
     * @param figure whether the column holds figures, aligned right
     */
    public record Column(String header, boolean figure, Function<ResultRow, String> cell) {
        public Column {
            requireNonNull(header, "header is null");
            requireNonNull(cell, "cell is null");
        }

        /** A column of words, aligned left. */
        public static Column words(String header, Function<ResultRow, String> cell) {
            return new Column(header, false, cell);
        }

        /** A column of figures, aligned right. */
        public static Column figures(String header, Function<ResultRow, String> cell) {
            return new Column(header, true, cell);
        }
    }

    /** The columns most tables open with. */
    public static final Column WORKLOAD = Column.words("workload", ResultRow::workload);

    public static final Column READER = Column.words("reader", ResultRow::reader);

    private MarkdownTable() {}

    /** The table of {@code rows} in {@code columns}. */
    public static String of(List<Column> columns, List<ResultRow> rows) {
        StringBuilder out = new StringBuilder();
        out.append(Figures.row(columns.stream().map(Column::header).toArray(String[]::new)));
        // no spaces in the rule, so that a column of short figures stays narrow in the page's source
        out.append(columns.stream()
                .map(column -> column.figure() ? "---:" : "---")
                .collect(Collectors.joining("|", "|", "|\n")));
        for (ResultRow row : rows) {
            out.append(Figures.row(
                    columns.stream().map(column -> column.cell().apply(row)).toArray(String[]::new)));
        }
        return out.toString();
    }

    /** The median time, or {@value #FAILED} for a row that failed. */
    public static String timeOrFailed(ResultRow row) {
        return row.failed() ? FAILED : Figures.seconds(row.seconds());
    }

    /** Whether every run's bytes (or listing) were checked right: a failed row's were not. */
    static String verified(ResultRow row) {
        return row.failed() ? FAILED : "verified";
    }
}
