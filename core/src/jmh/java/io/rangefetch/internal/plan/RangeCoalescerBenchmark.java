package io.rangefetch.internal.plan;

import io.rangefetch.FactorySettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Coalescing a vectored read of 1,000 ranges, given in shuffled order, with the default settings as a factory
 * derives them ({@link FactorySettings#defaultCoalescer()}, that mapping, not a copy of it). In the planning package,
 * as the ranges and requests it builds and gets back are package-private there. {@code dense}: 1 to 64 KiB ranges
 * with gaps up to 256 KiB, so nearly all merge; {@code sparse}: gaps of 1 to 8 MiB around the 2.55 MiB min-seek, so
 * about a quarter merge.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
public class RangeCoalescerBenchmark {
    private static final int RANGES = 1_000;

    @Param({"dense", "sparse"})
    public String layout;

    private RangeCoalescer coalescer;
    private List<CallerRange> ranges;

    @Setup
    public void setUp() {
        coalescer = new RangeCoalescer(FactorySettings.defaultCoalescer());
        Random random = new Random(11);
        long maxGap = layout.equals("dense") ? 256 << 10 : 7 << 20;
        long minGap = layout.equals("dense") ? 0 : 1 << 20;
        List<CallerRange> built = new ArrayList<>(RANGES);
        long cursor = 0;
        for (int i = 0; i < RANGES; i++) {
            CallerRange range = new CallerRange(
                    cursor + minGap + random.nextLong(maxGap + 1), (1 << 10) + random.nextInt(63 << 10));
            built.add(range);
            cursor = range.end();
        }
        Collections.shuffle(built, random);
        ranges = List.copyOf(built);
    }

    @Benchmark
    public List<CoalescedRequest> coalesce1000Ranges() {
        return coalescer.coalesce(ranges);
    }
}
