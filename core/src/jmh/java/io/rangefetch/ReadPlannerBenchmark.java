package io.rangefetch;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.ReadPlan;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.ReadRequest;
import io.rangefetch.internal.plan.SequentialState;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Planning one read with the default settings, as the stream does on every read that is not a plain cache hit
 * of the last block. The scenarios are built up front and cycled, so the numbers are the planner's alone.
 *
 * <p>In core's package so that the planner gets the very settings a factory gives it
 * ({@code StreamConfig.plannerSettings()}), not a copy of that mapping.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
public class ReadPlannerBenchmark {
    private static final long OBJECT_LENGTH = 1L << 30;
    private static final int SCENARIOS = 256;

    /** One read to plan, with the stream's state and what is cached near it. */
    private record Scenario(ReadRequest read, SequentialState state, List<ByteRange> cached) {}

    private ReadPlanner planner;
    private final Scenario[] sequential = new Scenario[SCENARIOS];
    private final Scenario[] random = new Scenario[SCENARIOS];
    private int next;

    @Setup
    public void setUp() {
        StreamConfig config = StreamConfig.defaults();
        planner = new ReadPlanner(EngineSettings.planner(config));
        SplittableRandom rng = new SplittableRandom(7);
        long block = config.get(StreamConfig.MAX_REQUEST_SIZE);
        for (int i = 0; i < SCENARIOS; i++) {
            // A scan in its steady state: 64 KiB reads following on, a full window, 8 MiB parts cached from
            // one block behind the reader to somewhere between 8 and 64 MiB ahead (so some plans prefetch).
            long position = block + ((rng.nextLong(OBJECT_LENGTH - 16 * block) >> 16) << 16);
            long ahead = block * (1 + rng.nextInt(8));
            List<ByteRange> cached = new ArrayList<>();
            for (long start = (position / block - 1) * block; start < position + ahead; start += block) {
                cached.add(ByteRange.ofLength(start, block));
            }
            sequential[i] = new Scenario(
                    new ReadRequest(position, 64 << 10, OBJECT_LENGTH, true, AccessHint.DETECT),
                    new SequentialState(position, 8, config.get(StreamConfig.PREFETCH_MAX_SIZE), 0),
                    cached);

            // A random reader: 16 KiB to 1 MiB anywhere, after another read elsewhere, with a few earlier
            // reads' bytes cached around it.
            long at = rng.nextLong(OBJECT_LENGTH - (2L << 20));
            List<ByteRange> scattered = new ArrayList<>();
            long cursor = Math.max(0, at - (1L << 20));
            for (int r = 0; r < 6; r++) {
                long start = cursor + rng.nextLong(256 << 10);
                long end = start + (64 << 10) + rng.nextLong(192 << 10);
                scattered.add(new ByteRange(start, end));
                cursor = end;
            }
            random[i] = new Scenario(
                    new ReadRequest(at, (16 << 10) + rng.nextInt(1 << 20), OBJECT_LENGTH, true, AccessHint.DETECT),
                    SequentialState.freshAt(rng.nextLong(OBJECT_LENGTH)),
                    scattered);
        }
    }

    @Benchmark
    public ReadPlan planSequential() {
        return plan(sequential[next++ & (SCENARIOS - 1)]);
    }

    @Benchmark
    public ReadPlan planRandom() {
        return plan(random[next++ & (SCENARIOS - 1)]);
    }

    private ReadPlan plan(Scenario scenario) {
        return planner.plan(scenario.read(), scenario.state(), scenario.cached());
    }
}
