package io.rangefetch.benchmarks.report;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.resilience.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The resilience part of {@code BENCHMARKS.md}: it starts at {@link #MARKER} and runs to the end of the page,
 * one subsection per scenario between {@code <!-- scenario ID -->} and {@code <!-- /scenario ID -->}. A
 * scenario run replaces its own subsections and keeps the others, so scenarios can be measured by separate
 * commands; the comparison run ({@link BenchmarksPage}) rewrites the page above the marker and keeps this part.
 */
public final class ResiliencePage {

    /** Where the resilience part begins; everything after it belongs to this class. */
    static final String MARKER = "<!-- resilience: written by ./bench --scenarios, one subsection per scenario -->";

    private static final Pattern BLOCK =
            Pattern.compile("<!-- scenario ([a-z0-9-]+) -->\n(.*?)<!-- /scenario \\1 -->\n", Pattern.DOTALL);

    private ResiliencePage() {}

    /**
     * Writes {@code sections} (a scenario's subsection, as {@link ResilienceReport#section()} makes it) into
     * {@code directory}'s page, replacing those scenarios' earlier subsections; returns the page.
     */
    public static Path update(Path directory, Map<Scenario, String> sections) throws IOException {
        requireNonNull(sections, "sections is null");
        Files.createDirectories(requireNonNull(directory, "directory is null"));
        Path file = directory.resolve(BenchmarksPage.PAGE);
        String page = Files.exists(file) ? Files.readString(file, UTF_8) : "# Benchmarks\n";
        int start = page.indexOf(MARKER);
        String above = start < 0 ? page : page.substring(0, start);
        Map<Scenario, String> blocks = start < 0 ? new EnumMap<>(Scenario.class) : blocks(page.substring(start));
        blocks.putAll(sections);
        Files.writeString(
                file, (above.endsWith("\n\n") ? above : above.stripTrailing() + "\n\n") + part(blocks), UTF_8);
        return file;
    }

    /** The resilience part of {@code page} (from the marker to the end), or "" if it has none. */
    static String of(String page) {
        int start = page.indexOf(MARKER);
        return start < 0 ? "" : page.substring(start);
    }

    private static Map<Scenario, String> blocks(String part) {
        Map<Scenario, String> blocks = new EnumMap<>(Scenario.class);
        Matcher matcher = BLOCK.matcher(part);
        while (matcher.find()) {
            if (Scenario.ids().contains(matcher.group(1))) {
                blocks.put(Scenario.byId(matcher.group(1)), matcher.group(2));
            }
        }
        return blocks;
    }

    private static String part(Map<Scenario, String> blocks) {
        StringBuilder out = new StringBuilder(MARKER).append("\n");
        out.append("## Resilience\n\n");
        out.append("Workloads from the table above run again while the proxy injects S3's failures: 503 SlowDown ")
                .append("at random or above a request-rate limit, and GETs whose first byte comes late. Each ")
                .append("reader's time is set beside its own clean time from the same command. The figures are ")
                .append("reported here, never asserted in a test. Each subsection was written by the command it ")
                .append("shows and is replaced when that scenario is measured again.\n\n");
        blocks.forEach((scenario, block) -> out.append("<!-- scenario ")
                .append(scenario.id())
                .append(" -->\n")
                .append(block.endsWith("\n") ? block : block + "\n")
                .append("<!-- /scenario ")
                .append(scenario.id())
                .append(" -->\n\n"));
        return out.toString().stripTrailing() + "\n";
    }
}
