package io.rangefetch.benchmarks.report;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The TPC-H part of {@code BENCHMARKS.md}, between {@link #START} and {@link #END}, right under the page's title: the
 * benchmark that decides comes first. {@code ./tpch --report-dir} replaces it and leaves the rest of the page as it
 * was; the comparison run ({@link BenchmarksPage}) rewrites the rest and keeps it.
 */
public final class TpchPage {
    static final String START = "<!-- tpch: written by ./tpch --report-dir -->";
    static final String END = "<!-- /tpch -->";
    private static final String TITLE = "# Benchmarks\n";

    private TpchPage() {}

    /** Writes {@code section} into {@code directory}'s page, replacing the earlier TPC-H part; returns the page. */
    public static Path update(Path directory, String section) throws IOException {
        requireNonNull(section, "section is null");
        Files.createDirectories(requireNonNull(directory, "directory is null"));
        Path file = directory.resolve(BenchmarksPage.PAGE);
        String page = Files.exists(file) ? Files.readString(file, UTF_8) : TITLE;
        Files.writeString(file, withPart(without(page), block(section)), UTF_8);
        return file;
    }

    /** The TPC-H part of {@code page}, markers included, or "" if it has none. */
    static String of(String page) {
        int start = page.indexOf(START);
        int end = page.indexOf(END);
        return start < 0 || end < start ? "" : page.substring(start, end + END.length()) + "\n";
    }

    /** {@code page} with {@code part} (markers included) right under its title. */
    static String withPart(String page, String part) {
        if (part.isEmpty()) {
            return page;
        }
        String rest = page.startsWith(TITLE) ? page.substring(TITLE.length()) : page;
        return TITLE + "\n" + part + "\n" + rest.stripLeading();
    }

    private static String without(String page) {
        String part = of(page);
        return part.isEmpty() ? page : page.replace(part, "");
    }

    private static String block(String section) {
        return START + "\n" + (section.endsWith("\n") ? section : section + "\n") + END + "\n";
    }
}
