package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.plan.FetchPlan.PlannedBlock;
import io.rangefetch.internal.plan.FetchPlan.PlannedGet;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** What a vectored read or prefetch claims, against what the cache holds: properties of {@link VectoredPlanner}. */
class VectoredPlannerPropertiesTest {

    /** A vectored read (or prefetch) of one object, what the cache holds of it, and the engine's settings. */
    record Scenario(
            long objectLength,
            List<ByteRange> wanted,
            List<ByteRange> present,
            boolean prefetch,
            int parts,
            PlannerSettings plannerSettings,
            CoalescerSettings coalescerSettings) {

        VectoredPlanner planner() {
            return new VectoredPlanner(new ReadPlanner(plannerSettings), new RangeCoalescer(coalescerSettings));
        }

        FetchPlan plan() {
            List<ByteRange> inWindow = present.stream()
                    .filter(block -> overlaps(block, planner().lookupWindow(wanted, objectLength)))
                    .toList();
            return planner().plan(wanted, inWindow, objectLength, prefetch, cap -> Math.min(cap, parts));
        }

        boolean small() {
            return new ReadPlanner(plannerSettings).isSmall(objectLength);
        }

        static Scenario random(long seed) {
            Random random = new Random(seed);
            long objectLength = 1 + random.nextInt(random.nextBoolean() ? 4_000 : 60_000);
            long minRequest = 1 + random.nextInt(2_000);
            long maxRequest = 2 * minRequest + random.nextInt(20_000);
            PlannerSettings planner = new PlannerSettings(
                    minRequest,
                    maxRequest,
                    random.nextInt(3) == 0 ? objectLength + random.nextInt(1_000) : random.nextInt(2_000),
                    2,
                    minRequest,
                    4 * maxRequest,
                    1 + random.nextInt(8),
                    minRequest + random.nextInt(5_000),
                    minRequest + random.nextInt(5_000));
            CoalescerSettings coalescer = new CoalescerSettings(
                    random.nextInt(5_000),
                    1 + random.nextInt(60_000),
                    maxRequest,
                    random.nextInt(200) / 100.0,
                    1 + random.nextInt(8_000),
                    1 + random.nextInt(8),
                    1 + random.nextInt(4_000));
            return new Scenario(
                    objectLength,
                    disjointRanges(random, objectLength, 1 + random.nextInt(12)),
                    disjointRanges(random, objectLength, random.nextInt(8)),
                    random.nextInt(4) == 0,
                    1 + random.nextInt(8),
                    planner,
                    coalescer);
        }

        /** Up to {@code count} sorted, disjoint, non-empty ranges inside {@code [0, length)}. */
        private static List<ByteRange> disjointRanges(Random random, long length, int count) {
            TreeSet<Long> cuts = new TreeSet<>();
            for (int i = 0; i < 2 * count; i++) {
                cuts.add((long) (random.nextDouble() * (length + 1)));
            }
            List<Long> points = new ArrayList<>(cuts);
            List<ByteRange> ranges = new ArrayList<>();
            for (int i = 0; i + 1 < points.size(); i += 2) {
                if (points.get(i + 1) > points.get(i) && random.nextInt(5) > 0) {
                    ranges.add(new ByteRange(points.get(i), points.get(i + 1)));
                }
            }
            if (ranges.isEmpty()) {
                long start = (long) (random.nextDouble() * length);
                ranges.add(new ByteRange(start, start + 1));
            }
            return ranges;
        }
    }

    @Property(tries = 500)
    void everyWantedByteNotCachedIsClaimedExactlyOnceAndNothingCachedIsClaimedAgain(@ForAll long seed) {
        Scenario scenario = Scenario.random(seed);
        FetchPlan plan = scenario.plan();
        List<ByteRange> claimed = blocks(plan).stream().map(PlannedBlock::bytes).toList();
        for (int i = 0; i < claimed.size(); i++) {
            for (int j = i + 1; j < claimed.size(); j++) {
                assertThat(overlaps(claimed.get(i), claimed.get(j)))
                        .as("claims %s and %s overlap", claimed.get(i), claimed.get(j))
                        .isFalse();
            }
            for (ByteRange block : scenario.present()) {
                assertThat(overlaps(claimed.get(i), block))
                        .as("claim %s overlaps the cached block %s", claimed.get(i), block)
                        .isFalse();
            }
        }
        for (ByteRange wanted : scenario.wanted()) {
            for (long at = wanted.start(); at < wanted.end(); at++) {
                long position = at;
                long holders = claimed.stream()
                                .filter(range -> range.contains(position))
                                .count()
                        + scenario.present().stream()
                                .filter(range -> range.contains(position))
                                .count();
                assertThat(holders)
                        .as("wanted byte %d is held by one block", position)
                        .isEqualTo(1);
            }
        }
    }

    @Property(tries = 500)
    void noGetIsLargerThanTheMaximumRequestAndEachHoldsItsBlocks(@ForAll long seed) {
        Scenario scenario = Scenario.random(seed);
        long maximum = scenario.plannerSettings().maxRequestSize();
        for (PlannedGet get : scenario.plan().gets()) {
            assertThat(get.range().length()).isBetween(1L, maximum);
            assertThat(get.prefetch()).isEqualTo(scenario.prefetch());
            assertThat(get.blocks()).isNotEmpty();
            for (PlannedBlock block : get.blocks()) {
                assertThat(block.bytes().start())
                        .isGreaterThanOrEqualTo(get.range().start());
                assertThat(block.bytes().end()).isLessThanOrEqualTo(get.range().end());
            }
        }
    }

    @Property(tries = 500)
    void eachBlockIsCopiedFromByExactlyTheWantedRangesItHoldsBytesOf(@ForAll long seed) {
        Scenario scenario = Scenario.random(seed);
        for (PlannedBlock block : blocks(scenario.plan())) {
            List<Integer> overlapping = new ArrayList<>();
            for (int i = 0; i < scenario.wanted().size(); i++) {
                if (overlaps(block.bytes(), scenario.wanted().get(i))) {
                    overlapping.add(i);
                }
            }
            assertThat(block.readers())
                    .as("readers of %s", block.bytes())
                    .isEqualTo(scenario.prefetch() ? List.of() : overlapping);
        }
    }

    @Property(tries = 300)
    void aSmallObjectThatMissesIsFetchedWholeAndAnotherOnlyWhereAsked(@ForAll long seed) {
        Scenario scenario = Scenario.random(seed);
        List<PlannedBlock> blocks = blocks(scenario.plan());
        if (blocks.isEmpty()) {
            return; // everything wanted was cached
        }
        for (long at = 0; at < scenario.objectLength(); at++) {
            long position = at;
            boolean held = blocks.stream().anyMatch(block -> block.bytes().contains(position))
                    || scenario.present().stream().anyMatch(range -> range.contains(position));
            if (scenario.small()) {
                assertThat(held)
                        .as("byte %d of a small object read whole", position)
                        .isTrue();
            }
        }
        if (!scenario.small()) {
            ByteRange window = scenario.planner().lookupWindow(scenario.wanted(), scenario.objectLength());
            for (PlannedGet get : scenario.plan().gets()) {
                assertThat(get.range().start()).isGreaterThanOrEqualTo(window.start());
                assertThat(get.range().end()).isLessThanOrEqualTo(window.end());
            }
        }
    }

    @Property(tries = 300)
    void theUnionOfPrefetchRangesIsDisjointSortedAndHoldsExactlyTheirBytesInTheObject(@ForAll long seed) {
        Random random = new Random(seed);
        long length = 1 + random.nextInt(5_000);
        List<ByteRange> ranges = new ArrayList<>();
        for (int i = random.nextInt(10); i > 0; i--) {
            long start = random.nextInt((int) length + 500);
            ranges.add(new ByteRange(start, start + 1 + random.nextInt(2_000)));
        }
        List<ByteRange> union = VectoredPlanner.union(ranges, length);
        for (int i = 0; i + 1 < union.size(); i++) {
            assertThat(union.get(i).end()).isLessThan(union.get(i + 1).start());
        }
        for (long at = 0; at < length + 600; at++) {
            long position = at;
            boolean asked = position < length && ranges.stream().anyMatch(range -> range.contains(position));
            assertThat(union.stream().anyMatch(range -> range.contains(position)))
                    .as("byte %d", position)
                    .isEqualTo(asked);
        }
    }

    @Example
    void aNarrowGapHoldingACachedBlockIsReadThroughInOneGetClaimedPerPiece() {
        PlannerSettings planner = new PlannerSettings(1_000, 100_000, 0, 2, 1_000, 400_000, 4, 1_000, 1_000);
        CoalescerSettings coalescer = new CoalescerSettings(5_000, 100_000, 100_000, 10);
        VectoredPlanner vectored = new VectoredPlanner(new ReadPlanner(planner), new RangeCoalescer(coalescer));
        List<ByteRange> wanted = List.of(new ByteRange(10_000, 20_000));
        // a dictionary page read first, in the middle of the chunk: narrower than the bridge
        List<ByteRange> present = List.of(new ByteRange(10_000, 10_500));
        assertThat(vectored.plan(wanted, List.of(new ByteRange(12_000, 12_500)), 1_000_000, false, cap -> cap)
                        .gets())
                .containsExactly(new PlannedGet(
                        new ByteRange(10_000, 20_000),
                        false,
                        List.of(
                                new PlannedBlock(new ByteRange(10_000, 12_000), List.of(0)),
                                new PlannedBlock(new ByteRange(12_500, 20_000), List.of(0)))));
        assertThat(vectored.plan(wanted, present, 1_000_000, false, cap -> cap).gets())
                .containsExactly(new PlannedGet(
                        new ByteRange(10_500, 20_000),
                        false,
                        List.of(new PlannedBlock(new ByteRange(10_500, 20_000), List.of(0)))));
    }

    @Example
    void aWideGapHoldingACachedBlockSplitsTheRead() {
        PlannerSettings planner = new PlannerSettings(1_000, 100_000, 0, 2, 1_000, 400_000, 4, 1_000, 1_000);
        CoalescerSettings coalescer = new CoalescerSettings(50_000, 100_000, 100_000, 10);
        VectoredPlanner vectored = new VectoredPlanner(new ReadPlanner(planner), new RangeCoalescer(coalescer));
        List<ByteRange> wanted = List.of(new ByteRange(0, 10_000), new ByteRange(30_000, 40_000));
        List<PlannedGet> gets = vectored.plan(
                        wanted, List.of(new ByteRange(15_000, 16_000)), 1_000_000, false, cap -> 1)
                .gets();
        assertThat(gets)
                .extracting(PlannedGet::range)
                .containsExactly(new ByteRange(0, 10_000), new ByteRange(30_000, 40_000));
    }

    private static List<PlannedBlock> blocks(FetchPlan plan) {
        return plan.gets().stream().flatMap(get -> get.blocks().stream()).toList();
    }

    private static boolean overlaps(ByteRange a, ByteRange b) {
        return a.start() < b.end() && b.start() < a.end();
    }
}
