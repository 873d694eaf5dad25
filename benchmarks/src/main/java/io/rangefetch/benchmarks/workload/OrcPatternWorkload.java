package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.data.TextSpec;
import io.rangefetch.benchmarks.readers.BenchmarkStream;
import io.rangefetch.benchmarks.readers.ReaderSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The alternate-column pattern of an ORC stripe read: equal ranges separated by equal gaps (the columns a
 * query skips), read either as positioned reads one after another or as one vectored read. A reader that
 * merges ranges across small gaps wins the first by prefetching and the second by coalescing; the bytes
 * needed are only the ranges.
 */
public final class OrcPatternWorkload implements Workload {

    public static final int RANGE_BYTES = 50_000;
    public static final int GAP_BYTES = 100_000;
    public static final int RANGES = 64;
    /** Where the first range starts, at most: a stripe is rarely at the start of a file. */
    public static final long FIRST_OFFSET = 4L << 20;

    /** How the ranges are asked for. */
    public enum Mode {
        POSITIONED("orc-positioned"),
        VECTORED("orc-vectored");

        private final String workloadName;

        Mode(String workloadName) {
            this.workloadName = workloadName;
        }
    }

    private final StoredObject object;
    private final Mode mode;
    private final List<ExpectedRange> ranges;

    /**
     * {@value #RANGES} ranges when the object has room for them after the first offset; fewer (and an
     * earlier start) in the small objects of a scaled-down run.
     */
    public OrcPatternWorkload(TextSpec spec, StoredObject object, Mode mode) {
        requireNonNull(spec, "spec is null");
        this.object = requireNonNull(object, "object is null");
        this.mode = requireNonNull(mode, "mode is null");
        long start = Math.min(FIRST_OFFSET, object.length() / 8);
        long stride = RANGE_BYTES + GAP_BYTES;
        int count = (int) Math.min(RANGES, (object.length() - start - RANGE_BYTES) / stride + 1);
        if (count < 1) {
            throw new IllegalArgumentException(object.key() + " is too small for the ORC pattern");
        }
        List<ExpectedRange> expected = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            expected.add(ExpectedRange.of(spec, object, start + i * stride, RANGE_BYTES));
        }
        this.ranges = List.copyOf(expected);
    }

    @Override
    public String name() {
        return mode.workloadName;
    }

    @Override
    public String description() {
        return String.format(
                "%d ranges of %,d bytes with gaps of %,d bytes from offset %,d of %s, %s",
                ranges.size(),
                RANGE_BYTES,
                GAP_BYTES,
                ranges.get(0).offset(),
                object.key(),
                mode == Mode.POSITIONED ? "as positioned reads one after another" : "as one vectored read");
    }

    /** Positioned reads wait for each other on one connection; a vectored read asks for all at once. */
    @Override
    public LowerBound lowerBound() {
        return mode == Mode.POSITIONED ? new LowerBound(ranges.size(), 1) : LowerBound.parallel(1);
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        long needed = (long) ranges.size() * RANGE_BYTES;
        try (BenchmarkStream in = Workloads.open(session, object)) {
            if (mode == Mode.POSITIONED) {
                byte[] buffer = new byte[RANGE_BYTES];
                for (ExpectedRange range : ranges) {
                    in.readFully(range.offset(), buffer, 0, RANGE_BYTES);
                    range.check(buffer);
                }
                return Outcome.needed(needed);
            }
            List<CompletableFuture<ByteBuffer>> results =
                    in.readVectored(ranges.stream().map(ExpectedRange::span).toList(), ByteBuffer::allocate);
            if (results.size() != ranges.size()) {
                throw new WrongBytesException(
                        object.key() + ": vectored read answered " + results.size() + " ranges for " + ranges.size());
            }
            for (int i = 0; i < ranges.size(); i++) {
                ranges.get(i).check(Workloads.await(results.get(i)));
            }
            return new Outcome(needed, !in.hasNativeVectoredRead());
        }
    }
}
