package io.rangefetch.benchmarks.tpch;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One query of one measured pass through one read path.
 *
 * @param path the read path's id ({@code s3a-rangefetch}, {@code iceberg}, …)
 * @param mode {@code cold} (a fresh file system or FileIO for the query) or {@code warm} (one for the pass)
 * @param query {@code q01} … {@code q22}
 * @param nanos the query's time in Spark, planning and collecting the result included
 * @param rows the result's rows
 * @param gets object GETs the proxy served (LISTs apart)
 * @param heads HEADs
 * @param bytes response body bytes
 * @param lists ListObjectsV2 calls
 * @param error why the query failed or its result differs from DuckDB's, if it did
 */
record QueryResult(
        String path,
        String mode,
        String query,
        long nanos,
        long rows,
        long gets,
        long heads,
        long bytes,
        long lists,
        Optional<String> error) {

    boolean correct() {
        return error.isEmpty();
    }

    double seconds() {
        return nanos / 1e9;
    }

    double megabytes() {
        return bytes / 1e6;
    }

    /** As a JSON object's fields. */
    Map<String, Object> fields() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("path", path);
        fields.put("mode", mode);
        fields.put("query", query);
        fields.put("seconds", seconds());
        fields.put("rows", rows);
        fields.put("gets", gets);
        fields.put("heads", heads);
        fields.put("bytes", bytes);
        fields.put("lists", lists);
        fields.put("correct", correct());
        error.ifPresent(e -> fields.put("error", e));
        return fields;
    }
}
