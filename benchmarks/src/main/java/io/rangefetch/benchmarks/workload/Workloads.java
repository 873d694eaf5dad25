package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.DataSet;
import io.rangefetch.benchmarks.data.GeneratedObject;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.data.StoredTable;
import io.rangefetch.benchmarks.readers.BenchmarkStream;
import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.workload.OrcPatternWorkload.Mode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.parquet.io.InputFile;

/** The workloads by name, the objects each needs, and what they share. */
public final class Workloads {

    /** Every workload, in report order. */
    public static final List<String> NAMES = List.of(
            "projection",
            "filtered-scan",
            "small-files",
            "small-files-parallel",
            "list-then-read",
            "sequential",
            "random",
            "orc-positioned",
            "orc-vectored",
            "strided-keys",
            "iceberg-scan",
            "listing");

    /** The workload that reads the data set's Iceberg table rather than objects. */
    public static final String ICEBERG_SCAN = "iceberg-scan";

    /** Small-files' files found by a Rangefetch listing first: {@link ListThenReadWorkload}. */
    public static final String LIST_THEN_READ = "list-then-read";

    /**
     * Listing many partitions with three strategies. Not a {@link Workload} of readers: the runner measures it
     * apart ({@code io.rangefetch.benchmarks.listing}), over its own objects.
     */
    public static final String LISTING = "listing";

    /** The longest a workload waits for one answer before it calls the reader stuck. */
    static final Duration TIMEOUT = Duration.ofMinutes(5);

    private static final long RANDOM_SEED = 42;

    private Workloads() {}

    /** Checks that every name is a workload; answers them in report order, without repeats. */
    public static List<String> select(Collection<String> names) {
        Set<String> wanted = new LinkedHashSet<>(names);
        for (String name : wanted) {
            if (!NAMES.contains(name)) {
                throw new IllegalArgumentException(
                        "unknown workload '" + name + "'; known: " + String.join(", ", NAMES));
            }
        }
        return NAMES.stream().filter(wanted::contains).toList();
    }

    /**
     * The objects the named workloads read (the Iceberg table and the listing's partitions are prepared apart:
     * {@link #readsTable}, {@link #LISTING}).
     */
    public static List<GeneratedObject> objects(DataSet data, Collection<String> names) {
        Set<GeneratedObject> objects = new LinkedHashSet<>();
        for (String name : select(names)) {
            switch (name) {
                case "projection" -> objects.add(data.wide());
                case "small-files", "small-files-parallel", LIST_THEN_READ -> objects.addAll(data.smallFiles());
                case "strided-keys" -> objects.addAll(data.strided());
                case "filtered-scan" -> objects.addAll(data.filtered());
                case ICEBERG_SCAN, LISTING -> {}
                default -> objects.add(data.text());
            }
        }
        return List.copyOf(objects);
    }

    /** Whether one of the named workloads reads the data set's Iceberg table. */
    public static boolean readsTable(Collection<String> names) {
        return select(names).contains(ICEBERG_SCAN);
    }

    /**
     * The named workloads over the stored objects and table, in report order; {@link #LISTING} is left out (it is
     * not a workload of readers).
     *
     * @param table the stored table; empty unless {@link #readsTable} said one is read
     */
    public static List<Workload> create(
            DataSet data, Collection<String> names, Map<String, StoredObject> stored, Optional<StoredTable> table) {
        requireNonNull(stored, "stored is null");
        requireNonNull(table, "table is null");
        List<Workload> workloads = new ArrayList<>();
        for (String name : select(names)) {
            if (name.equals(LISTING)) {
                continue;
            }
            workloads.add(
                    switch (name) {
                        case "projection" -> new ProjectionWorkload(data.wide(), find(stored, data.wide()));
                        case "small-files" ->
                            new SmallFilesWorkload(
                                    data.smallFiles(),
                                    data.smallFiles().stream()
                                            .map(spec -> find(stored, spec))
                                            .toList(),
                                    1);
                        case "small-files-parallel" ->
                            new SmallFilesWorkload(
                                    data.smallFiles(),
                                    data.smallFiles().stream()
                                            .map(spec -> find(stored, spec))
                                            .toList(),
                                    SmallFilesWorkload.PARALLEL_TASKS);
                        case "filtered-scan" ->
                            new FilteredScanWorkload(
                                    data.filtered(),
                                    data.filtered().stream()
                                            .map(spec -> find(stored, spec))
                                            .toList());
                        case "strided-keys" ->
                            new StridedKeysWorkload(
                                    data.strided(),
                                    data.strided().stream()
                                            .map(spec -> find(stored, spec))
                                            .toList());
                        case LIST_THEN_READ ->
                            new ListThenReadWorkload(
                                    data.smallFiles(),
                                    data.smallFiles().stream()
                                            .map(spec -> find(stored, spec))
                                            .toList());
                        case "sequential" -> new SequentialWorkload(data.text(), find(stored, data.text()));
                        case "random" -> new RandomReadsWorkload(data.text(), find(stored, data.text()), RANDOM_SEED);
                        case "orc-positioned" ->
                            new OrcPatternWorkload(data.text(), find(stored, data.text()), Mode.POSITIONED);
                        case "orc-vectored" ->
                            new OrcPatternWorkload(data.text(), find(stored, data.text()), Mode.VECTORED);
                        case ICEBERG_SCAN ->
                            new IcebergScanWorkload(
                                    data.table(),
                                    table.orElseThrow(
                                            () -> new IllegalArgumentException("the Iceberg table is not stored")));
                        default -> throw new AssertionError(name);
                    });
        }
        return List.copyOf(workloads);
    }

    private static StoredObject find(Map<String, StoredObject> stored, GeneratedObject object) {
        StoredObject found = stored.get(object.key());
        if (found == null) {
            throw new IllegalArgumentException(object.key() + " is not stored");
        }
        return found;
    }

    /** One task's share of a workload: answers the bytes it needed. */
    @FunctionalInterface
    interface Share {
        long read(int task) throws IOException;
    }

    /**
     * Runs {@code tasks} tasks side by side, as an executor's task slots do, task {@code i} reading
     * {@code share.read(i)}; answers the sum of what they needed.
     */
    static long sumOverTasks(int tasks, Share share) throws IOException {
        ExecutorService pool = threads("bench-task-", tasks);
        try {
            List<Future<Long>> running = new ArrayList<>();
            for (int task = 0; task < tasks; task++) {
                int index = task;
                running.add(pool.submit(() -> share.read(index)));
            }
            long needed = 0;
            for (Future<Long> task : running) {
                needed += await(task);
            }
            return needed;
        } finally {
            stop(pool);
        }
    }

    /** Opens an object as an engine does that knows its length and ETag from a listing or a manifest. */
    static BenchmarkStream open(ReaderSession session, StoredObject object) throws IOException {
        return session.open(object.key(), object.length(), Optional.of(object.etag()));
    }

    /** The object as parquet-java's input file, with what an engine knows of it, as {@link #open}. */
    static InputFile parquetFile(ReaderSession session, StoredObject object) throws IOException {
        return session.parquetFile(object.key(), object.length(), Optional.of(object.etag()));
    }

    /** Waits for one answer a workload asked for, with the reader's failure as the exception. */
    static <T> T await(Future<T> future) throws IOException {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for a read");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("read failed: " + cause, cause);
        } catch (TimeoutException e) {
            throw new IOException("a read did not finish within " + TIMEOUT, e);
        }
    }

    /** A workload's {@code count} daemon threads, named {@code prefix} and a number. */
    static ExecutorService threads(String prefix, int count) {
        AtomicInteger number = new AtomicInteger();
        return Executors.newFixedThreadPool(count, task -> {
            Thread thread = new Thread(task, prefix + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Stops a workload's threads and waits for them, so none still reads once the session closes. */
    static void stop(ExecutorService pool) throws InterruptedIOException {
        pool.shutdownNow();
        try {
            if (!pool.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("workload threads still running " + TIMEOUT + " after a stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for workload threads");
        }
    }
}
