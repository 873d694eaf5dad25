package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.ParquetSpec;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.ReaderSession;
import java.io.IOException;
import java.util.List;

/**
 * Many small Parquet files read whole, as a task over a partitioned table's small files does: per file, the cost of
 * opening (learning the length, reading the footer) weighs as much as the data. Either one task reads them one
 * after another ({@code small-files}), or {@value #PARALLEL_TASKS} tasks at once through one session, each its share
 * one after another ({@code small-files-parallel}): an executor's pattern, where every extra request a file costs
 * takes connections and CPU the other tasks need.
 */
public final class SmallFilesWorkload implements Workload {
    public static final int PARALLEL_TASKS = 8;

    private final List<ParquetSpec> specs;
    private final List<StoredObject> objects;
    private final int tasks;

    /**
     * @param specs and {@code objects}: the same files, in the same order
     * @param tasks 1, or {@value #PARALLEL_TASKS} reading at once
     */
    public SmallFilesWorkload(List<ParquetSpec> specs, List<StoredObject> objects, int tasks) {
        this.specs = List.copyOf(requireNonNull(specs, "specs is null"));
        this.objects = List.copyOf(requireNonNull(objects, "objects is null"));
        if (specs.isEmpty() || specs.size() != objects.size()) {
            throw new IllegalArgumentException(specs.size() + " specs for " + objects.size() + " objects");
        }
        if (tasks != 1 && tasks != PARALLEL_TASKS) {
            throw new IllegalArgumentException("1 or " + PARALLEL_TASKS + " tasks, not " + tasks);
        }
        this.tasks = tasks;
    }

    @Override
    public String name() {
        return tasks == 1 ? "small-files" : "small-files-parallel";
    }

    @Override
    public String description() {
        long bytes = objects.stream().mapToLong(StoredObject::length).sum();
        return String.format(
                "%d Parquet files of %.1f MB each, every column of each file through parquet-java, "
                        + "%s, every value checked",
                objects.size(),
                bytes / 1e6 / objects.size(),
                tasks == 1 ? "one file after another" : "by " + tasks + " tasks at once through one session");
    }

    /**
     * One round trip per file (footer and chunks of a small file can come in one GET), each task's files in
     * sequence, the tasks side by side.
     */
    @Override
    public LowerBound lowerBound() {
        return LowerBound.parallel((objects.size() + tasks - 1) / tasks);
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        if (tasks == 1) {
            return Outcome.needed(readShare(session, 0));
        }
        return Outcome.needed(Workloads.sumOverTasks(tasks, first -> readShare(session, first)));
    }

    /** Reads one task's files, {@code first} and every {@code tasks}-th after it; answers the bytes they needed. */
    private long readShare(ReaderSession session, int first) throws IOException {
        long needed = 0;
        for (int i = first; i < objects.size(); i += tasks) {
            needed += ParquetScan.scan(Workloads.parquetFile(session, objects.get(i)), specs.get(i), List.of());
        }
        return needed;
    }
}
