package io.rangefetch.benchmarks.tpch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The TPC-H results as markdown: per family (S3A, Iceberg) and mode (cold, warm), a summary of each read path's
 * totals (time, GETs, HEADs, MB, and Rangefetch's speed-up over the fastest other path of its family) and a table
 * of every query's time, GETs and MB per path. A wrong or failed query is marked and named under its table.
 */
final class TpchReport {
    private final List<QueryResult> results;

    TpchReport(List<QueryResult> results) {
        this.results = List.copyOf(results);
    }

    boolean allCorrect() {
        return results.stream().allMatch(QueryResult::correct);
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        for (String family : List.of("S3A", "Iceberg")) {
            for (String mode : List.of("cold", "warm")) {
                Map<ReadPath, List<QueryResult>> byPath = byPath(family, mode);
                if (!byPath.isEmpty()) {
                    section(out, family, mode, byPath);
                }
            }
        }
        return out.toString();
    }

    private Map<ReadPath, List<QueryResult>> byPath(String family, String mode) {
        Map<ReadPath, List<QueryResult>> byPath = new LinkedHashMap<>();
        for (ReadPath path : ReadPath.values()) {
            if (!path.family.equals(family)) {
                continue;
            }
            List<QueryResult> rows = results.stream()
                    .filter(r -> r.path().equals(path.id) && r.mode().equals(mode))
                    .toList();
            if (!rows.isEmpty()) {
                byPath.put(path, rows);
            }
        }
        return byPath;
    }

    private static void section(
            StringBuilder out, String family, String mode, Map<ReadPath, List<QueryResult>> byPath) {
        out.append("### ").append(family).append(", ").append(mode).append('\n').append('\n');
        out.append("| read path | total time | GETs | HEADs | MB moved | results |\n");
        out.append("|---|--:|--:|--:|--:|---|\n");
        Map<ReadPath, Double> totals = new LinkedHashMap<>();
        byPath.forEach((path, rows) ->
                totals.put(path, rows.stream().mapToDouble(QueryResult::seconds).sum()));
        for (Map.Entry<ReadPath, List<QueryResult>> entry : byPath.entrySet()) {
            ReadPath path = entry.getKey();
            List<QueryResult> rows = entry.getValue();
            long wrong = rows.stream().filter(r -> !r.correct()).count();
            String name = path.rangefetch()
                    ? "**" + path.description + "**"
                    : path.reference() ? "_" + path.description + "_" : path.description;
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.1f s%s | %,d | %,d | %,.0f | %s |%n",
                    name,
                    totals.get(path),
                    speedUp(path, totals).orElse(""),
                    rows.stream().mapToLong(QueryResult::gets).sum(),
                    rows.stream().mapToLong(QueryResult::heads).sum(),
                    rows.stream().mapToDouble(QueryResult::megabytes).sum(),
                    wrong == 0 ? "all " + rows.size() + " equal DuckDB's" : wrong + " wrong or failed"));
        }
        out.append('\n');
        List<String> queries = byPath.values().iterator().next().stream()
                .map(QueryResult::query)
                .toList();
        StringBuilder header = new StringBuilder("| query |");
        StringBuilder rule = new StringBuilder("|---|");
        for (ReadPath path : byPath.keySet()) {
            header.append(' ').append(path.id).append(" s | GETs | MB |");
            rule.append("--:|--:|--:|");
        }
        out.append(header).append('\n').append(rule).append('\n');
        List<String> failures = new ArrayList<>();
        for (String query : queries) {
            out.append("| ").append(query).append(" |");
            for (Map.Entry<ReadPath, List<QueryResult>> entry : byPath.entrySet()) {
                Optional<QueryResult> row = entry.getValue().stream()
                        .filter(r -> r.query().equals(query))
                        .findFirst();
                if (row.isEmpty()) {
                    out.append(" | | |");
                    continue;
                }
                QueryResult r = row.get();
                out.append(String.format(
                        Locale.ROOT,
                        " %.2f%s | %,d | %.1f |",
                        r.seconds(),
                        r.correct() ? "" : " ✗",
                        r.gets(),
                        r.megabytes()));
                r.error().ifPresent(e -> failures.add(entry.getKey().id + " " + query + ": " + e));
            }
            out.append('\n');
        }
        out.append('\n');
        if (!failures.isEmpty()) {
            out.append(failures.stream().map(f -> "- ✗ " + f).collect(Collectors.joining("\n")))
                    .append("\n\n");
        }
    }

    /** For a Rangefetch path: ({@code 1.23×} the fastest other path of its family), if there is one. */
    private static Optional<String> speedUp(ReadPath path, Map<ReadPath, Double> totals) {
        if (!path.rangefetch()) {
            return Optional.empty();
        }
        return totals.entrySet().stream()
                .filter(e -> !e.getKey().rangefetch() && !e.getKey().reference())
                .mapToDouble(Map.Entry::getValue)
                .min()
                .stream()
                .boxed()
                .findFirst()
                .map(best -> String.format(Locale.ROOT, " (%.2f× the fastest other)", best / totals.get(path)));
    }
}
