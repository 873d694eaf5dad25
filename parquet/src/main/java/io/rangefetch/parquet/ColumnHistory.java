package io.rangefetch.parquet;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which columns readers of each Parquet schema actually read, learned across files, so the next file with that
 * schema can have those columns in flight before its reader asks. A schema is keyed by its column paths, not by
 * a file: the files of one table share it.
 *
 * <p>Each column read gains weight, up to a cap; each column of the schema left unread by a file's reader loses
 * one, and is forgotten at zero: a query that stops reading a column stops costing its bytes within a few files.
 * A wrong prediction costs bytes (counted in the statistics as prefetched but unread), never correctness.
 * Memory is bounded: at most {@value #MAX_SCHEMAS} schemas per factory, the least used forgotten first.
 *
 * <p>One history per factory: its {@link ParquetFormatPolicy} holds it. Thread-safe.
 */
final class ColumnHistory {
    static final int MAX_SCHEMAS = 1_000;
    private static final int READ_GAIN = 2;
    private static final int MAX_WEIGHT = 4;

    private final Cache<Set<String>, Map<String, Integer>> bySchema = Caffeine.newBuilder()
            .maximumSize(MAX_SCHEMAS)
            .executor(Runnable::run)
            .build();

    /** The columns of {@code schema} its readers are predicted to read; empty when nothing is known. */
    Set<String> predicted(Set<String> schema) {
        Map<String, Integer> weights = bySchema.getIfPresent(schema);
        if (weights == null) {
            return Set.of();
        }
        synchronized (weights) {
            return Set.copyOf(weights.keySet());
        }
    }

    /** A reader of a file with {@code schema} read {@code columns}. */
    void record(Set<String> schema, Set<String> columns) {
        Map<String, Integer> weights = bySchema.get(Set.copyOf(schema), ignored -> new HashMap<>());
        synchronized (weights) {
            weights.replaceAll((column, weight) -> columns.contains(column) ? weight : weight - 1);
            weights.values().removeIf(weight -> weight <= 0);
            for (String column : columns) {
                weights.merge(column, READ_GAIN, (old, gain) -> Math.min(MAX_WEIGHT, old + gain));
            }
        }
    }
}
