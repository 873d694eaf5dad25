package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.rangefetch.benchmarks.listing.ListingResults;
import io.rangefetch.benchmarks.run.RunSample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The results file: the run's description, the summary rows (the comparison's, or the resilience scenarios'),
 * the listing workload's results (null if it did not run) and every run (warm-ups and listing runs included), so
 * a reader of the file can recompute any figure. Records map to JSON objects field by field; every row, of any
 * family, is a {@link ResultRow}.
 */
public record JsonReport(
        RunDescription run,
        List<ResultRow> rows,
        List<ResultRow> resilience,
        ListingResults listing,
        List<RunSample> samples) {

    public JsonReport {
        requireNonNull(run, "run is null");
        // a file from before the resilience rows has none
        rows = rows == null ? List.of() : List.copyOf(rows);
        resilience = resilience == null ? List.of() : List.copyOf(resilience);
        samples = List.copyOf(samples);
    }

    /** A comparison's results. */
    public JsonReport(RunDescription run, List<ResultRow> rows, List<RunSample> samples) {
        this(run, rows, List.of(), null, samples);
    }

    /** Writes the report to {@code file}, creating its directory if need be. */
    public void write(Path file) throws IOException {
        Path parent = requireNonNull(file, "file is null").toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        mapper().writeValue(file.toFile(), this);
    }

    public static JsonReport read(Path file) throws IOException {
        return mapper().readValue(requireNonNull(file, "file is null").toFile(), JsonReport.class);
    }

    private static ObjectMapper mapper() {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }
}
