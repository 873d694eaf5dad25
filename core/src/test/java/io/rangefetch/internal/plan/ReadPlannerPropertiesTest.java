package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;

class ReadPlannerPropertiesTest {

    /** One read against one object with some ranges already cached. */
    record Scenario(
            PlannerSettings settings,
            long objectLength,
            List<ByteRange> cached,
            long position,
            long length,
            boolean streaming,
            AccessHint hint,
            SequentialState state) {

        ReadRequest read() {
            return new ReadRequest(position, length, objectLength, streaming, hint);
        }

        ReadPlan plan() {
            return new ReadPlanner(settings).plan(read(), state, cached);
        }
    }

    @Property(tries = 2000)
    void everyRequestedByteIsCachedOrPlannedExactlyOnce(@ForAll("scenarios") Scenario scenario) {
        ReadPlan plan = scenario.plan();
        List<ByteRange> all = new ArrayList<>(scenario.cached());
        all.addAll(plan.demand());
        all.addAll(plan.prefetch());
        all.sort(null);
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i).start())
                    .as("ranges overlap: %s", all)
                    .isGreaterThanOrEqualTo(all.get(i - 1).end());
        }
        List<ByteRange> available = new ArrayList<>(scenario.cached());
        available.addAll(plan.demand());
        available.sort(null);
        long cursor = scenario.position();
        long end = scenario.read().end();
        for (ByteRange range : available) {
            if (range.start() <= cursor && range.end() > cursor) {
                cursor = range.end();
            }
        }
        assertThat(cursor).as("bytes of the read left unplanned").isGreaterThanOrEqualTo(end);
    }

    @Property(tries = 2000)
    void cachedRangesOutsideTheLookupWindowCannotChangeThePlan(@ForAll("scenarios") Scenario scenario) {
        ReadPlanner planner = new ReadPlanner(scenario.settings());
        ByteRange window = planner.lookupWindow(scenario.read());
        List<ByteRange> visible = scenario.cached().stream()
                .filter(range -> range.overlaps(window.start(), window.end()))
                .toList();
        ReadPlan fromAll = planner.plan(scenario.read(), scenario.state(), scenario.cached());
        ReadPlan fromWindow = planner.plan(scenario.read(), scenario.state(), visible);
        assertThat(fromWindow).isEqualTo(fromAll);
    }

    @Property(tries = 2000)
    void everyRequestIsClosedWithinTheObjectAndAtMostTheMaximum(@ForAll("scenarios") Scenario scenario) {
        ReadPlan plan = scenario.plan();
        Stream.concat(plan.demand().stream(), plan.prefetch().stream()).forEach(range -> {
            assertThat(range.length())
                    .isPositive()
                    .isLessThanOrEqualTo(scenario.settings().maxRequestSize());
            assertThat(range.end()).isLessThanOrEqualTo(scenario.objectLength());
        });
    }

    @Property(tries = 2000)
    void noRequestIsBelowTheMinimumUnlessItReachesTheEndOrFillsAGap(@ForAll("scenarios") Scenario scenario) {
        ReadPlan plan = scenario.plan();
        long minimum = scenario.settings().minRequestSize();
        assertBelowOnlyWhereBounded(
                scenario, plan, Stream.concat(plan.demand().stream(), plan.prefetch().stream()), minimum);
    }

    @Property(tries = 2000)
    void aSmallerDemandMinimumShapesOnlyTheDemandOfObjectsThatAreNotSmall(
            @ForAll("scenarios") Scenario scenario, @ForAll double fraction) {
        PlannerSettings settings = scenario.settings();
        long demandMinimum = 1 + (long) (Math.abs(fraction) % 1.0 * settings.minRequestSize());
        ReadPlanner configured = new ReadPlanner(settings);
        ReadPlanner adapted = configured.withDemandMinimum(Math.min(demandMinimum, settings.minRequestSize()));
        ReadPlan plan = adapted.plan(scenario.read(), scenario.state(), scenario.cached());

        assertThat(adapted.lookupWindow(scenario.read())).isEqualTo(configured.lookupWindow(scenario.read()));
        if (configured.isSmall(scenario.objectLength())) {
            assertThat(plan)
                    .as("a small object is read whole as before")
                    .isEqualTo(configured.plan(scenario.read(), scenario.state(), scenario.cached()));
            return;
        }
        List<ByteRange> available = new ArrayList<>(scenario.cached());
        available.addAll(plan.demand());
        available.sort(null);
        long cursor = scenario.position();
        for (ByteRange range : available) {
            if (range.start() <= cursor && range.end() > cursor) {
                cursor = range.end();
            }
        }
        assertThat(cursor)
                .as("bytes of the read left unplanned")
                .isGreaterThanOrEqualTo(scenario.read().end());
        assertBelowOnlyWhereBounded(scenario, plan, plan.demand().stream(), adapted.demandMinimum());
        assertBelowOnlyWhereBounded(scenario, plan, plan.prefetch().stream(), settings.minRequestSize());
    }

    @Property(tries = 200)
    void aDemandMinimumAboveTheConfiguredOneIsRejected(@ForAll("settings") PlannerSettings settings) {
        ReadPlanner planner = new ReadPlanner(settings);
        assertThat(planner.withDemandMinimum(settings.minRequestSize())).isSameAs(planner);
        assertThat(planner.withDemandMinimum(1)
                        .withSmallObjectSizeAtMost(settings.smallObjectSize() / 2)
                        .demandMinimum())
                .isEqualTo(1);
        assertThatThrownBy(() -> planner.withDemandMinimum(settings.minRequestSize() + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> planner.withDemandMinimum(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Each of {@code ranges} is at least {@code minimum} long, or reaches the object's end or fills a gap. */
    private static void assertBelowOnlyWhereBounded(
            Scenario scenario, ReadPlan plan, Stream<ByteRange> ranges, long minimum) {
        TreeSet<Long> starts = new TreeSet<>();
        TreeSet<Long> ends = new TreeSet<>();
        Stream.of(scenario.cached(), plan.demand(), plan.prefetch())
                .flatMap(List::stream)
                .forEach(range -> {
                    starts.add(range.start());
                    ends.add(range.end());
                });
        ranges.filter(range -> range.length() < minimum).forEach(range -> {
            boolean startBounded = range.start() == 0 || ends.contains(range.start());
            boolean endBounded = range.end() == scenario.objectLength() || starts.contains(range.end());
            assertThat(startBounded && endBounded)
                    .as("%s is below the minimum %d without reaching the end or filling a gap", range, minimum)
                    .isTrue();
        });
    }

    @Property(tries = 1000)
    void aSmallObjectIsFetchedWholeOnItsFirstMiss(@ForAll("scenarios") Scenario scenario) {
        PlannerSettings settings = scenario.settings();
        if (scenario.objectLength() > settings.smallObjectSize()
                || !scenario.cached().isEmpty()) {
            return;
        }
        List<ByteRange> demand = scenario.plan().demand();
        assertThat(demand.get(0).start()).isZero();
        assertThat(demand.get(demand.size() - 1).end()).isEqualTo(scenario.objectLength());
        // in parallel parts: as many of at least the small-object part size as the parallelism allows
        long length = scenario.objectLength();
        long max = settings.maxRequestSize();
        long parts = Math.max(
                Math.max(1, Math.min(settings.prefetchParallelism(), length / settings.smallObjectPartSize())),
                (length + max - 1) / max);
        assertThat((long) demand.size()).isEqualTo(parts);
        for (int i = 1; i < demand.size(); i++) {
            assertThat(demand.get(i).start()).isEqualTo(demand.get(i - 1).end());
        }
        assertThat(demand).allSatisfy(part -> assertThat(part.length()).isLessThanOrEqualTo(max));
    }

    @Property(tries = 1000)
    void positionedReadsNeitherPrefetchNorChangeTheSequentialState(@ForAll("scenarios") Scenario scenario) {
        if (scenario.streaming()) {
            return;
        }
        ReadPlan plan = scenario.plan();
        assertThat(plan.prefetch()).isEmpty();
        assertThat(plan.next()).isEqualTo(scenario.state());
    }

    @Property(tries = 300)
    void aRandomReaderNeverPrefetches(
            @ForAll("settings") PlannerSettings settings, @ForAll("positions") List<Long> positions) {
        ReadPlanner planner = new ReadPlanner(settings);
        long objectLength = 1_000_000_000L;
        SequentialState state = SequentialState.initial();
        long previousEnd = -1;
        for (long position : positions) {
            if (position == previousEnd) {
                continue; // that one would follow on: not random
            }
            ReadPlan plan = planner.plan(
                    new ReadRequest(position, 100, objectLength, true, AccessHint.DETECT), state, List.of());
            if (settings.sequentialReads() > 1) {
                assertThat(plan.prefetch()).isEmpty();
                assertThat(plan.next().window()).isZero();
            }
            state = plan.next();
            previousEnd = position + 100;
        }
    }

    @Property(tries = 200)
    void aSequentialReaderRampsItsWindowUpToTheCap(@ForAll("settings") PlannerSettings settings) {
        if (settings.prefetchMaxSize() == 0) {
            return;
        }
        ReadPlanner planner = new ReadPlanner(settings);
        long objectLength = Math.max(settings.prefetchMaxSize() * 8, settings.minRequestSize() * 64)
                + settings.smallObjectSize()
                + 1;
        long readSize = Math.max(1, settings.minRequestSize() / 4);
        List<ByteRange> cached = new ArrayList<>();
        SequentialState state = SequentialState.initial();
        long lastWindow = 0;
        long largestPrefetchBatch = 0;
        for (long position = 0; position < objectLength; position += readSize) {
            ReadPlan plan = planner.plan(
                    new ReadRequest(position, readSize, objectLength, true, AccessHint.DETECT), state, cached);
            cached.addAll(plan.demand());
            cached.addAll(plan.prefetch());
            long readEnd = position + readSize;
            cached.removeIf(range -> range.end() < readEnd); // behind the reader: no longer matters
            long furthest = cached.stream().mapToLong(ByteRange::end).max().orElse(readEnd);
            // the window grows with what the reader read, not with each read: a few small reads never
            // leave a large prefetch behind
            assertThat(furthest - readEnd)
                    .as("bytes fetched ahead after reading %d", readEnd)
                    .isLessThanOrEqualTo(
                            Math.max(settings.prefetchInitialSize(), 4 * readEnd) + 2 * settings.minRequestSize());
            assertThat(plan.next().window()).isLessThanOrEqualTo(settings.prefetchMaxSize());
            if (plan.next().window() != 0) {
                assertThat(plan.next().window()).isGreaterThanOrEqualTo(lastWindow);
            }
            long batch = plan.prefetch().stream().mapToLong(ByteRange::length).sum();
            // a window smaller than the minimum request still fetches the minimum
            assertThat(batch).isLessThanOrEqualTo(plan.next().window() + settings.minRequestSize());
            long window = plan.next().window();
            if (window == settings.prefetchMaxSize() && readEnd + window < objectLength) {
                // kept full: refilled whenever a step of at most half the window is free
                assertThat(furthest - readEnd)
                        .as("ahead of the reader at %d", readEnd)
                        .isGreaterThanOrEqualTo(window / 2 - readSize);
            }
            largestPrefetchBatch = Math.max(largestPrefetchBatch, batch);
            lastWindow = plan.next().window();
            state = plan.next();
        }
        assertThat(lastWindow).isEqualTo(settings.prefetchMaxSize());
        assertThat(largestPrefetchBatch).isPositive();
    }

    @Property(tries = 2000)
    void aReadWithinTheQuietEndNeedsNoPlan(@ForAll("scenarios") Scenario scenario, @ForAll double fraction) {
        ReadPlan plan = scenario.plan();
        long end = scenario.read().end();
        if (plan.quietEnd() <= end) {
            return;
        }
        assertThat(plan.quietEnd()).isLessThanOrEqualTo(scenario.objectLength());
        long nextEnd = end + 1 + (long) (Math.abs(fraction) % 1.0 * (plan.quietEnd() - end - 1));
        List<ByteRange> cached = new ArrayList<>(scenario.cached());
        cached.addAll(plan.demand());
        cached.addAll(plan.prefetch());
        ReadRequest next = new ReadRequest(
                end,
                nextEnd - end,
                scenario.objectLength(),
                true,
                scenario.read().hint());

        ReadPlan following = new ReadPlanner(scenario.settings()).plan(next, plan.next(), cached);

        assertThat(following.demand()).isEmpty();
        assertThat(following.prefetch()).isEmpty();
        assertThat(following.next()).isEqualTo(plan.next().followedBy(nextEnd));
    }

    @Property(tries = 1000)
    void theFirstRequestIsClosedAndBounded(
            @ForAll("settings") PlannerSettings settings,
            @ForAll("lengths") long objectLength,
            @ForAll("lengths") long readLength,
            @ForAll boolean tail,
            @ForAll boolean lengthKnown,
            @ForAll AccessHint hint) {
        ReadPlanner planner = new ReadPlanner(settings);
        long position = tail ? 0 : objectLength / 3;
        FirstRequest first = planner.firstRequest(position, readLength, lengthKnown ? objectLength : -1, tail, hint);
        // never over the maximum request, not even to read a small object whole
        long limit = settings.maxRequestSize();
        if (first.range() == null) {
            assertThat(lengthKnown).isFalse();
            assertThat(tail).isTrue();
            assertThat(first.suffixLength()).isBetween(1L, limit);
            return;
        }
        assertThat(first.range().length()).isLessThanOrEqualTo(limit);
        if (lengthKnown) {
            assertThat(first.range().end()).isLessThanOrEqualTo(objectLength);
            if (tail) {
                assertThat(first.range().end()).isEqualTo(objectLength);
            } else {
                assertThat(first.range().contains(Math.min(position, objectLength - 1)))
                        .isTrue();
            }
        } else {
            assertThat(first.range().start()).isEqualTo(position);
        }
    }

    /** One streaming read of a sequence: {@code jump} moves it to {@code fraction} of the object first. */
    record Step(boolean jump, double fraction, long length, boolean starved) {}

    @Property(tries = 500)
    void prefetchNeverPassesThePrefetchEndAndDemandStillCoversEveryRead(
            @ForAll("settings") PlannerSettings settings,
            @ForAll("lengths") long objectLength,
            @ForAll("prefetchEnds") double endFraction,
            @ForAll @Size(min = 1, max = 60) List<@From("steps") Step> steps,
            @ForAll AccessHint hint) {
        ReadPlanner planner = new ReadPlanner(settings);
        long prefetchEnd = endFraction > 1 ? Long.MAX_VALUE : (long) (endFraction * objectLength);
        long limit = Math.min(objectLength, prefetchEnd);
        List<ByteRange> cached = new ArrayList<>();
        SequentialState state = SequentialState.initial();
        long position = 0;
        for (Step step : steps) {
            if (step.jump()) {
                position = (long) (step.fraction() * objectLength);
            }
            if (position >= objectLength) {
                position = 0;
            }
            long length = Math.min(step.length(), objectLength - position);
            ReadRequest read = new ReadRequest(position, length, objectLength, true, hint, step.starved(), prefetchEnd);
            ReadPlan plan = planner.plan(read, state, cached);
            for (ByteRange range : plan.prefetch()) {
                assertThat(range.end())
                        .as("prefetch %s with prefetch end %d of %d bytes", range, prefetchEnd, objectLength)
                        .isLessThanOrEqualTo(limit);
            }
            List<ByteRange> available = new ArrayList<>(cached);
            available.addAll(plan.demand());
            available.sort(null);
            long cursor = position;
            for (ByteRange range : available) {
                if (range.start() <= cursor && range.end() > cursor) {
                    cursor = range.end();
                }
            }
            assertThat(cursor).as("bytes of %s left unplanned", read).isGreaterThanOrEqualTo(read.end());
            cached.addAll(plan.demand());
            cached.addAll(plan.prefetch());
            state = plan.next();
            position = read.end();
        }
    }

    @Property(tries = 500)
    void theFirstRequestFromTheStartReadsOnNoFurtherThanThePrefetchEnd(
            @ForAll("settings") PlannerSettings settings,
            @ForAll("lengths") long readLength,
            @ForAll("lengths") long prefetchEnd,
            @ForAll AccessHint hint) {
        FirstRequest first = new ReadPlanner(settings).firstRequest(0, readLength, -1, false, hint, prefetchEnd);
        long asked = Math.max(settings.minRequestSize(), Math.min(settings.maxRequestSize(), readLength));
        assertThat(first.range().start()).isZero();
        assertThat(first.range().end()).isLessThanOrEqualTo(Math.max(asked, prefetchEnd));
        assertThat(first.range().end()).isGreaterThanOrEqualTo(asked);
    }

    @Property(tries = 1000)
    void anOpenFetchOfAKnownVersionPrefetchesWhatThePolicyAskedInsideTheObject(
            @ForAll("settings") PlannerSettings settings,
            @ForAll("lengths") long objectLength,
            @ForAll("lengths") long start,
            @ForAll("lengths") long length,
            @ForAll boolean tail) {
        ReadPlanner planner = new ReadPlanner(settings);
        ByteRange range = planner.openPrefetch(tail, start, length, objectLength);
        if (planner.isSmall(objectLength)) {
            assertThat(range).as("a small object whole").isEqualTo(new ByteRange(0, objectLength));
        } else if (tail) {
            // a tail reaches the end, so the minimum request does not grow it
            assertThat(range).isEqualTo(new ByteRange(Math.max(0, objectLength - length), objectLength));
        } else if (start >= objectLength) {
            assertThat(range).as("nothing past the end").isNull();
        } else {
            long size = Math.min(objectLength - start, Math.max(length, settings.minRequestSize()));
            assertThat(range).isEqualTo(new ByteRange(start, start + size));
        }
        assertThatThrownBy(() -> planner.openPrefetch(tail, start, length, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Provide
    Arbitrary<Double> prefetchEnds() {
        // a split end anywhere in the object, at its very start or end, or none (above 1)
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.doubles().between(0, 1)),
                Tuple.of(1, Arbitraries.of(0.0, 1.0)),
                Tuple.of(2, Arbitraries.just(2.0)));
    }

    @Provide
    Arbitrary<Step> steps() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 9).map(jump -> jump == 0),
                        Arbitraries.doubles().between(0, 1),
                        Arbitraries.longs().between(1, 200_000),
                        Arbitraries.of(true, false))
                .as(Step::new);
    }

    @Provide
    Arbitrary<PlannerSettings> settings() {
        Arbitrary<Long> min = Arbitraries.longs().between(1, 4096);
        return min.flatMap(minimum -> Combinators.combine(
                        Arbitraries.longs().between(2 * minimum, 64 * minimum),
                        Arbitraries.integers().between(1, 3),
                        Arbitraries.longs().between(minimum, 16 * minimum),
                        Arbitraries.integers().between(0, 5),
                        Arbitraries.integers().between(1, 16))
                .flatAs((maximum, sequentialReads, initial, growth, parallelism) -> Arbitraries.longs()
                        .between(0, 10 * maximum)
                        .map(small -> new PlannerSettings(
                                minimum,
                                maximum,
                                small,
                                sequentialReads,
                                initial,
                                growth == 0 ? 0 : initial << growth,
                                parallelism,
                                minimum * (1 + parallelism % 3),
                                minimum * (1 + growth)))));
    }

    @Provide
    Arbitrary<List<Long>> positions() {
        return Arbitraries.longs().between(0, 999_999_000L).list().ofMinSize(2).ofMaxSize(50);
    }

    @Provide
    Arbitrary<Long> lengths() {
        return Arbitraries.longs().between(1, 10_000_000L);
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        return settings().flatMap(settings -> {
            long unit = settings.maxRequestSize();
            return Arbitraries.longs()
                    .between(1, 40 * unit)
                    .flatMap(objectLength -> Combinators.combine(
                                    Arbitraries.longs()
                                            .between(0, objectLength - 1)
                                            .list()
                                            .ofMaxSize(12),
                                    Arbitraries.longs().between(0, objectLength - 1),
                                    Arbitraries.longs().between(1, 3 * unit),
                                    Arbitraries.of(true, false),
                                    Arbitraries.of(AccessHint.class),
                                    Arbitraries.integers().between(0, 4),
                                    Arbitraries.longs().between(0, settings.prefetchMaxSize()),
                                    Arbitraries.of(true, false))
                            .as((cuts, position, length, streaming, hint, streak, window, followsOn) -> new Scenario(
                                    settings,
                                    objectLength,
                                    cachedFrom(cuts, objectLength),
                                    position,
                                    length,
                                    streaming,
                                    hint,
                                    new SequentialState(
                                            followsOn ? position : -1,
                                            streak,
                                            window,
                                            followsOn ? position / 2 : -1))));
        });
    }

    /** Sorted cut points, paired up: every other stretch between cuts is cached. */
    private static List<ByteRange> cachedFrom(List<Long> cuts, long objectLength) {
        List<Long> points = new ArrayList<>(new TreeSet<>(cuts));
        List<ByteRange> cached = new ArrayList<>();
        for (int i = 0; i + 1 < points.size(); i += 2) {
            cached.add(new ByteRange(points.get(i), points.get(i + 1)));
        }
        return cached;
    }
}
