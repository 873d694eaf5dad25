package io.rangefetch.benchmarks;

import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** The readers the runner knows, by the ids {@code --readers} takes, Rangefetch first. */
final class ReaderCatalog {

    private static final Map<String, Supplier<ReaderUnderTest>> READERS = readers();

    private ReaderCatalog() {}

    /** Every id, in report order. */
    static List<String> ids() {
        return List.copyOf(READERS.keySet());
    }

    /** The named readers in report order, without repeats. */
    static List<ReaderUnderTest> select(Collection<String> ids) {
        Set<String> wanted = new LinkedHashSet<>(ids);
        for (String id : wanted) {
            if (!READERS.containsKey(id)) {
                throw new IllegalArgumentException("unknown reader '" + id + "'; known: " + String.join(", ", ids()));
            }
        }
        return READERS.entrySet().stream()
                .filter(entry -> wanted.contains(entry.getKey()))
                .map(entry -> entry.getValue().get())
                .toList();
    }

    private static Map<String, Supplier<ReaderUnderTest>> readers() {
        Map<String, Supplier<ReaderUnderTest>> readers = new LinkedHashMap<>();
        return readers;
    }
}
