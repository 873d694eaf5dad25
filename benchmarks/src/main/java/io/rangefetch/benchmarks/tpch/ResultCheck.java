package io.rangefetch.benchmarks.tpch;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Compares two query results in the canonical text form ({@code spark-tpch/bin/tpch_expected.py}): the same rows in the
 * same order, fields equal as text, or, where both are numbers, within an absolute 0.01 or a relative 1e-12 of each
 * other, whichever is larger (two engines may round an average or a sum of decimals differently in the last place).
 */
final class ResultCheck {
    private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?");
    private static final BigDecimal ABSOLUTE = new BigDecimal("0.01");
    private static final BigDecimal RELATIVE = new BigDecimal("1e-12");

    private ResultCheck() {}

    /** The first difference between the results in two files, or empty when they agree. */
    static Optional<String> difference(Path expected, Path actual) throws IOException {
        if (!Files.exists(actual)) {
            return Optional.of("no result " + actual);
        }
        return difference(
                Files.readAllLines(expected, StandardCharsets.UTF_8),
                Files.readAllLines(actual, StandardCharsets.UTF_8));
    }

    static Optional<String> difference(List<String> expected, List<String> actual) {
        if (expected.size() != actual.size()) {
            return Optional.of(actual.size() + " rows where " + expected.size() + " were expected");
        }
        for (int row = 0; row < expected.size(); row++) {
            String[] want = expected.get(row).split("\t", -1);
            String[] got = actual.get(row).split("\t", -1);
            if (want.length != got.length) {
                return Optional.of("row " + (row + 1) + " has " + got.length + " fields, not " + want.length);
            }
            for (int field = 0; field < want.length; field++) {
                if (!same(want[field], got[field])) {
                    return Optional.of("row " + (row + 1) + " field " + (field + 1) + ": '" + got[field] + "' where '"
                            + want[field] + "' was expected");
                }
            }
        }
        return Optional.empty();
    }

    static boolean same(String expected, String actual) {
        if (expected.equals(actual)) {
            return true;
        }
        if (!NUMBER.matcher(expected).matches() || !NUMBER.matcher(actual).matches()) {
            return false;
        }
        BigDecimal want = new BigDecimal(expected);
        BigDecimal difference = want.subtract(new BigDecimal(actual)).abs();
        return difference.compareTo(ABSOLUTE.max(want.abs().multiply(RELATIVE))) <= 0;
    }
}
