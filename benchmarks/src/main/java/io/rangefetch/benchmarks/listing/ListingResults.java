package io.rangefetch.benchmarks.listing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.report.RunDescription.Item;
import java.util.List;

/**
 * What the listing workload measured, for the report and the results file.
 *
 * @param shape the layout at full scale as the runner's {@code --listing-layout} writes it, e.g. {@code 2400x10}
 * @param layout one line on the objects listed
 * @param sets the wanted sets, by id, with what each wants
 * @param strategies the strategies, by name, with how each lists
 */
public record ListingResults(
        String shape, String layout, List<Item> sets, List<Item> strategies, List<ResultRow> rows) {

    public ListingResults {
        requireNonNull(shape, "shape is null");
        requireNonNull(layout, "layout is null");
        sets = List.copyOf(sets);
        strategies = List.copyOf(strategies);
        rows = List.copyOf(rows);
    }

    public boolean anyFailed() {
        return rows.stream().anyMatch(ResultRow::failed);
    }
}
