package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.ParquetSpec;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.ReaderSession;
import java.io.IOException;
import java.util.List;

/**
 * Many small Parquet files read whole, one after another, as a task over a partitioned table's small files
 * does: per file, the cost of opening (learning the length, reading the footer) weighs as much as the data.
 */
public final class SmallFilesWorkload implements Workload {

    private final List<ParquetSpec> specs;
    private final List<StoredObject> objects;

    /** @param specs and {@code objects}: the same files, in the same order */
    public SmallFilesWorkload(List<ParquetSpec> specs, List<StoredObject> objects) {
        this.specs = List.copyOf(requireNonNull(specs, "specs is null"));
        this.objects = List.copyOf(requireNonNull(objects, "objects is null"));
        if (specs.isEmpty() || specs.size() != objects.size()) {
            throw new IllegalArgumentException(specs.size() + " specs for " + objects.size() + " objects");
        }
    }

    @Override
    public String name() {
        return "small-files";
    }

    @Override
    public String description() {
        long bytes = objects.stream().mapToLong(StoredObject::length).sum();
        return String.format("%d Parquet files of %.1f MB each, every column of each file through parquet-java, "
                + "one file after another, every value checked", objects.size(), bytes / 1e6 / objects.size());
    }

    /** One round trip per file (footer and chunks of a small file can come in one GET), files in sequence. */
    @Override
    public LowerBound lowerBound() {
        return LowerBound.parallel(objects.size());
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        long needed = 0;
        for (int i = 0; i < objects.size(); i++) {
            StoredObject object = objects.get(i);
            needed += ParquetScan.scan(Workloads.parquetFile(session, object), specs.get(i), List.of());
        }
        return Outcome.needed(needed);
    }
}
