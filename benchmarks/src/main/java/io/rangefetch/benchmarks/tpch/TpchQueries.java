package io.rangefetch.benchmarks.tpch;

import java.util.List;
import java.util.stream.IntStream;

/** The TPC-H tables and the names of the 22 queries ({@code q01} … {@code q22}). */
final class TpchQueries {
    static final List<String> TABLES =
            List.of("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem");
    static final List<String> ALL =
            IntStream.rangeClosed(1, 22).mapToObj(TpchQueries::name).toList();

    private TpchQueries() {}

    static String name(int number) {
        return String.format("q%02d", number);
    }

    /** {@code 6}, {@code q6}, {@code Q06} and {@code q06} all name {@code q06}. */
    static String parse(String text) {
        String digits = text.trim().toLowerCase(java.util.Locale.ROOT).replaceFirst("^q", "");
        int number;
        try {
            number = Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a TPC-H query: '" + text + "' (q1 to q22)");
        }
        if (number < 1 || number > 22) {
            throw new IllegalArgumentException("not a TPC-H query: '" + text + "' (q1 to q22)");
        }
        return name(number);
    }
}
