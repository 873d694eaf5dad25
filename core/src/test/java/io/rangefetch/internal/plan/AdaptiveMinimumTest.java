package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * {@link AdaptiveMinimum} read by read: each read is planned by the real {@link ReadPlanner} with the minimum the
 * class gives, against what earlier reads fetched, so the reads it watches are the ones a stream would plan.
 */
class AdaptiveMinimumTest {
    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    private static final long OBJECT = 64 * MIB;
    private static final PlannerSettings SETTINGS =
            new PlannerSettings(64 * KIB, 8 * MIB, 8 * MIB, 2, 4 * MIB, 64 * MIB, 16, 2 * MIB, 512 * KIB);

    /** One stream's positioned reads: the minimum, the planner, and what its GETs fetched so far. */
    private static final class Reader {
        final AdaptiveMinimum minimum;
        final ReadPlanner planner;
        final List<ByteRange> cached = new ArrayList<>();
        final List<Long> minima = new ArrayList<>();
        long fetched;
        long read;

        Reader(PlannerSettings settings) {
            this.planner = new ReadPlanner(settings);
            this.minimum = new AdaptiveMinimum(settings.minRequestSize());
        }

        Reader() {
            this(SETTINGS);
        }

        /** A read the stream plans (as ObjectReader.readOn does): told, planned, its padding watched. */
        void read(long position, long length) {
            long end = Math.min(OBJECT, position + length);
            minimum.touched(position, end);
            long current = minimum.minimum();
            minima.add(current);
            ReadPlan plan = planner.withDemandMinimum(current)
                    .plan(
                            new ReadRequest(position, end - position, OBJECT, false, AccessHint.DETECT),
                            SequentialState.initial(),
                            cached);
            minimum.planned(position, end, plan.demand(), OBJECT);
            cached.addAll(plan.demand());
            fetched += plan.demand().stream().mapToLong(ByteRange::length).sum();
            read += end - position;
        }

        long current() {
            return minimum.minimum();
        }
    }

    private static long randomPosition(Random random, long length) {
        return (long) (random.nextDouble() * (OBJECT - length));
    }

    @Test
    void aRandomReaderShrinksToItsReadSizeAfterOneRoundAndStaysThere() {
        Reader reader = new Reader();
        Random random = new Random(1);
        for (int i = 0; i < 200; i++) {
            reader.read(randomPosition(random, 8 * KIB), 8 * KIB);
        }
        // judged at the 5th read (a first round of four): runs of 8 KiB
        assertThat(reader.minima.subList(0, AdaptiveMinimum.FIRST_ROUND)).containsOnly(64 * KIB);
        assertThat(reader.minima.subList(AdaptiveMinimum.FIRST_ROUND, 200)).containsOnly(8 * KIB);
        assertThat(reader.fetched).as("fetched for %d read", reader.read).isLessThan(reader.read * 3 / 2);
    }

    @Test
    void tinyRandomReadsStopAtTheFloor() {
        Reader reader = new Reader();
        Random random = new Random(2);
        for (int i = 0; i < 200; i++) {
            reader.read(randomPosition(random, 100), 100);
            assertThat(reader.current()).isGreaterThanOrEqualTo(AdaptiveMinimum.FLOOR);
        }
        assertThat(reader.current()).isEqualTo(AdaptiveMinimum.FLOOR);
    }

    @Test
    void oneLargeReadInARoundDoesNotHoldTheFloorUp() {
        Reader reader = new Reader();
        Random random = new Random(3);
        for (int i = 0; i < 200; i++) {
            reader.read(randomPosition(random, 40 * KIB), i % 8 == 0 ? 40 * KIB : 8 * KIB);
        }
        assertThat(reader.current()).isEqualTo(8 * KIB);
    }

    @Test
    void aSequentialReaderKeepsTheConfiguredMinimum() {
        Reader reader = new Reader();
        for (long position = 0; position < 16 * MIB; position += 8 * KIB) {
            reader.read(position, 8 * KIB);
        }
        assertThat(reader.minima).containsOnly(64 * KIB);
        assertThat(reader.fetched).isEqualTo(reader.read);
    }

    @Test
    void aReaderOfStructuresInSeveralSmallReadsFetchesAStructureARequest() {
        // four 8 KiB reads in a row, then elsewhere: runs of 32 KiB
        Reader reader = new Reader();
        Random random = new Random(4);
        for (int i = 0; i < 100; i++) {
            long start = randomPosition(random, 32 * KIB);
            for (int j = 0; j < 4; j++) {
                reader.read(start + j * 8 * KIB, 8 * KIB);
            }
        }
        assertThat(reader.current()).isEqualTo(32 * KIB);
        assertThat(reader.fetched).as("fetched for %d read", reader.read).isLessThan(reader.read * 3 / 2);
    }

    @Test
    void aReaderOfPairsSettlesAtAPair() {
        // two 8 KiB reads in a row: runs of 16 KiB
        Reader reader = new Reader();
        Random random = new Random(5);
        for (int i = 0; i < 200; i++) {
            long start = randomPosition(random, 16 * KIB);
            reader.read(start, 8 * KIB);
            reader.read(start + 8 * KIB, 8 * KIB);
        }
        assertThat(reader.current()).isEqualTo(16 * KIB);
        assertThat(reader.minima.subList(reader.minima.size() - 200, reader.minima.size()))
                .containsOnly(16 * KIB);
    }

    @Test
    void aReaderThatTurnsFromRandomToSequentialGrowsBack() {
        Reader reader = new Reader();
        Random random = new Random(6);
        for (int i = 0; i < 100; i++) {
            reader.read(randomPosition(random, 8 * KIB), 8 * KIB);
        }
        assertThat(reader.current()).isEqualTo(8 * KIB);
        // nothing is fetched past a read any more; the reads that follow are what the minimum watches
        long position = 32 * MIB;
        int reads = 0;
        while (reader.current() < 64 * KIB) {
            reader.read(position, 8 * KIB);
            position += 8 * KIB;
            reads++;
            assertThat(reads).as("reads before the minimum is back").isLessThan(100);
        }
        for (int i = 0; i < 500; i++, position += 8 * KIB) {
            reader.read(position, 8 * KIB);
            assertThat(reader.current()).isEqualTo(64 * KIB);
        }
    }

    @Test
    void quietReadsToldAsOneSpanAtTheNextPlannedReadCountAsUsed() {
        // a streaming reader: each structure's first read is planned, the seven after it are served quietly, and
        // the stream tells the run they continued only when its next planned read comes
        AdaptiveMinimum minimum = new AdaptiveMinimum(64 * KIB);
        Random random = new Random(7);
        long runStart = -1;
        long runEnd = -1;
        for (int i = 0; i < 100; i++) {
            if (runStart >= 0) {
                minimum.touched(runStart, runEnd);
            }
            long position = randomPosition(random, 64 * KIB);
            minimum.touched(position, position + 8 * KIB);
            assertThat(minimum.minimum()).isEqualTo(64 * KIB);
            minimum.planned(position, position + 8 * KIB, List.of(ByteRange.ofLength(position, 64 * KIB)), OBJECT);
            runStart = position;
            runEnd = position + 64 * KIB;
        }
    }

    @Test
    void untoldQuietReadsWouldLookRandom() {
        // the same reader, its quiet reads never told: proof that the span above is what keeps its minimum
        AdaptiveMinimum minimum = new AdaptiveMinimum(64 * KIB);
        Random random = new Random(7);
        for (int i = 0; i < 100; i++) {
            long position = randomPosition(random, 64 * KIB);
            minimum.touched(position, position + 8 * KIB);
            minimum.planned(position, position + 8 * KIB, List.of(ByteRange.ofLength(position, 64 * KIB)), OBJECT);
        }
        assertThat(minimum.minimum()).isEqualTo(8 * KIB);
    }

    @Test
    void readsTheConfiguredMinimumWouldNotPadTellNothing() {
        AdaptiveMinimum minimum = new AdaptiveMinimum(64 * KIB);
        Random random = new Random(8);
        for (int i = 0; i < 100; i++) {
            long position = randomPosition(random, 64 * KIB);
            minimum.touched(position, position + 64 * KIB);
            minimum.planned(position, position + 64 * KIB, List.of(ByteRange.ofLength(position, 64 * KIB)), OBJECT);
            // a read served from the cache plans no request
            minimum.planned(position, position + 8 * KIB, List.of(), OBJECT);
        }
        assertThat(minimum.minimum()).isEqualTo(64 * KIB);
    }

    @Test
    void readsNoPaddingCouldFollowTellNothing() {
        AdaptiveMinimum minimum = new AdaptiveMinimum(64 * KIB);
        for (int i = 0; i < 100; i++) {
            // a read at an object's end: its request is grown backward, nothing can follow it
            long objectLength = OBJECT - i * 64 * KIB;
            minimum.touched(objectLength - 8 * KIB, objectLength);
            minimum.planned(
                    objectLength - 8 * KIB,
                    objectLength,
                    List.of(new ByteRange(objectLength - 64 * KIB, objectLength)),
                    objectLength);
        }
        assertThat(minimum.minimum()).isEqualTo(64 * KIB);
    }

    @Test
    void aConfiguredMinimumBelowTheFloorNeverMoves() {
        Reader reader = new Reader(
                new PlannerSettings(2 * KIB, 8 * MIB, 8 * MIB, 2, 4 * MIB, 64 * MIB, 16, 2 * MIB, 512 * KIB));
        Random random = new Random(9);
        for (int i = 0; i < 100; i++) {
            reader.read(randomPosition(random, 100), 100);
        }
        assertThat(reader.minima).containsOnly(2 * KIB);
    }

    @Test
    void aMinimumThatIsNotPositiveIsRejected() {
        assertThatThrownBy(() -> new AdaptiveMinimum(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 0");
    }

    @Test
    void readsFromManyThreadsKeepTheBounds() throws Exception {
        AdaptiveMinimum minimum = new AdaptiveMinimum(64 * KIB);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Random random = new Random(t);
                done.add(threads.submit(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        long position = randomPosition(random, 64 * KIB);
                        minimum.touched(position, position + 8 * KIB);
                        long current = minimum.minimum();
                        assertThat(current).isBetween(8 * KIB, 64 * KIB);
                        minimum.planned(
                                position,
                                position + 8 * KIB,
                                List.of(ByteRange.ofLength(position, Math.max(8 * KIB, current))),
                                OBJECT);
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(minimum.minimum()).isEqualTo(8 * KIB);
    }

    /** One read of a sequence: after the last one ({@code follows}) or anywhere, told or not (a quiet read). */
    record Step(boolean follows, double where, long length, boolean told) {}

    @Property(tries = 300)
    void theMinimumStaysBetweenTheFloorAndTheConfiguredMinimum(
            @ForAll @LongRange(min = 1, max = 1024 * 1024) long configured,
            @ForAll @Size(min = 1, max = 300) List<@From("steps") Step> steps) {
        AdaptiveMinimum minimum = new AdaptiveMinimum(configured);
        long lowest = Math.min(configured, AdaptiveMinimum.FLOOR);
        List<ByteRange> cached = new ArrayList<>();
        long next = 0;
        for (Step step : steps) {
            long length = Math.min(step.length(), OBJECT);
            long position =
                    step.follows() ? Math.min(next, OBJECT - length) : (long) (step.where() * (OBJECT - length));
            long end = position + length;
            if (step.told()) {
                minimum.touched(position, end);
            }
            long current = minimum.minimum();
            assertThat(current).isBetween(lowest, configured);
            long grownEnd = Math.min(OBJECT, position + Math.max(length, current));
            List<ByteRange> demand = cached.stream().anyMatch(range -> range.contains(position))
                    ? List.of()
                    : List.of(new ByteRange(position, grownEnd));
            minimum.planned(position, end, demand, OBJECT);
            cached.addAll(demand);
            next = end;
        }
        assertThat(minimum.minimum()).isBetween(lowest, configured);
    }

    @Property(tries = 300)
    void aReaderOfOneReadSizeNeverGetsAMinimumBelowIt(
            @ForAll @LongRange(min = 1, max = 256 * 1024) long length,
            @ForAll @Size(min = 1, max = 300) List<@From("steps") Step> steps) {
        Reader reader = new Reader();
        long floor = Math.min(64 * KIB, Math.max(AdaptiveMinimum.FLOOR, length));
        long next = 0;
        for (Step step : steps) {
            long position =
                    step.follows() ? Math.min(next, OBJECT - length) : (long) (step.where() * (OBJECT - length));
            reader.read(position, length);
            next = position + length;
        }
        assertThat(reader.minima).allSatisfy(current -> assertThat(current).isBetween(floor, 64 * KIB));
    }

    @Provide
    Arbitrary<Step> steps() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 2).map(follows -> follows == 0),
                        Arbitraries.doubles().between(0, 1),
                        Arbitraries.longs().between(1, 200_000),
                        Arbitraries.integers().between(0, 3).map(told -> told != 0))
                .as(Step::new);
    }
}
