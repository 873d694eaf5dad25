package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.data.TextSpec;
import io.rangefetch.benchmarks.readers.BenchmarkStream;
import io.rangefetch.benchmarks.readers.ReaderSession;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Small positioned reads at random offsets from several threads, each with its own stream on the same
 * object, as index lookups or a key-value scan over a large file do. Every read waits for its answer before
 * the thread issues the next, so round trips add up per thread; a reader that fetches far more than asked
 * per read pays in bytes. Each read call is timed, so a run also tells how the reads' latencies spread (a
 * slow first byte shows in the tail, not in the median).
 */
public final class RandomReadsWorkload implements Workload {

    public static final int THREADS = 8;
    public static final int READS_PER_THREAD = 25;
    public static final int READ_SIZE = 8 * 1024;

    private final StoredObject object;
    private final List<List<ExpectedRange>> readsByThread;

    public RandomReadsWorkload(TextSpec spec, StoredObject object, long seed) {
        requireNonNull(spec, "spec is null");
        this.object = requireNonNull(object, "object is null");
        if (object.length() < READ_SIZE) {
            throw new IllegalArgumentException(object.key() + " is smaller than one read");
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<List<ExpectedRange>> reads = new ArrayList<>();
        for (int thread = 0; thread < THREADS; thread++) {
            List<ExpectedRange> ranges = new ArrayList<>();
            for (int i = 0; i < READS_PER_THREAD; i++) {
                long offset = random.nextLong(object.length() - READ_SIZE + 1);
                ranges.add(ExpectedRange.of(spec, object, offset, READ_SIZE));
            }
            reads.add(List.copyOf(ranges));
        }
        this.readsByThread = List.copyOf(reads);
    }

    @Override
    public String name() {
        return "random";
    }

    @Override
    public String description() {
        return String.format(
                "%d threads, each with its own stream on %s, %d positioned reads of %d KiB at seeded "
                        + "random offsets",
                THREADS, object.key(), READS_PER_THREAD, READ_SIZE / 1024);
    }

    /** Each thread's reads wait for each other; the threads run side by side. */
    @Override
    public LowerBound lowerBound() {
        return new LowerBound(READS_PER_THREAD, THREADS);
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        ExecutorService pool = Workloads.threads("bench-random-", THREADS);
        try {
            List<Future<long[]>> threads = new ArrayList<>();
            for (List<ExpectedRange> reads : readsByThread) {
                threads.add(pool.submit(() -> readAll(session, reads)));
            }
            List<Long> readNanos = new ArrayList<>(THREADS * READS_PER_THREAD);
            for (Future<long[]> thread : threads) {
                for (long nanos : Workloads.await(thread)) {
                    readNanos.add(nanos);
                }
            }
            return new Outcome((long) THREADS * READS_PER_THREAD * READ_SIZE, false, readNanos);
        } finally {
            Workloads.stop(pool);
        }
    }

    /** Reads one thread's ranges; answers how long each read call took (the check not included). */
    private long[] readAll(ReaderSession session, List<ExpectedRange> reads) throws IOException {
        byte[] buffer = new byte[READ_SIZE];
        long[] readNanos = new long[reads.size()];
        try (BenchmarkStream in = Workloads.open(session, object)) {
            for (int i = 0; i < reads.size(); i++) {
                ExpectedRange read = reads.get(i);
                long start = System.nanoTime();
                in.readFully(read.offset(), buffer, 0, READ_SIZE);
                readNanos[i] = System.nanoTime() - start;
                read.check(buffer);
            }
        }
        return readNanos;
    }
}
