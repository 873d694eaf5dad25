package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

class RangeCoalescerPropertiesTest {

    /** A vectored read: settings and the caller's ranges, in the (shuffled) order the caller gave them. */
    record Scenario(CoalescerSettings settings, List<CallerRange> ranges) {

        List<CoalescedRequest> plan() {
            return new RangeCoalescer(settings).coalesce(ranges);
        }
    }

    @Property(tries = 1000)
    void everyRequestedByteIsCoveredExactlyOnce(@ForAll("scenarios") Scenario scenario) {
        List<CoalescedRequest> plan = scenario.plan();
        Map<Integer, Long> nextByteOfRange = new HashMap<>();
        long previousPartEnd = -1;
        for (CoalescedRequest request : plan) {
            for (RequestPart part : request.parts()) {
                assertThat(part.range().start())
                        .as("parts overlap or go backwards")
                        .isGreaterThanOrEqualTo(previousPartEnd);
                previousPartEnd = part.range().end();
                for (RangeSegment segment : part.segments()) {
                    CallerRange range = scenario.ranges().get(segment.range());
                    assertThat(request.ranges()).contains(segment.range());
                    assertThat(segment.bytes().start())
                            .isGreaterThanOrEqualTo(part.range().start());
                    assertThat(segment.bytes().end())
                            .isLessThanOrEqualTo(part.range().end());
                    long expected = nextByteOfRange.getOrDefault(segment.range(), range.offset());
                    assertThat(segment.bytes().start())
                            .as("segments of range %d leave a hole or overlap", segment.range())
                            .isEqualTo(expected);
                    nextByteOfRange.put(segment.range(), segment.bytes().end());
                }
            }
        }
        for (int i = 0; i < scenario.ranges().size(); i++) {
            CallerRange range = scenario.ranges().get(i);
            if (range.length() == 0) {
                assertThat(nextByteOfRange)
                        .as("an empty range caused a request")
                        .doesNotContainKey(i);
            } else {
                assertThat(nextByteOfRange.get(i))
                        .as("range %d is not covered to its end", i)
                        .isEqualTo(range.end());
            }
        }
        List<Integer> carried = plan.stream()
                .flatMap(request -> request.ranges().stream())
                .sorted()
                .toList();
        assertThat(carried)
                .as("every non-empty range is in exactly one request")
                .isEqualTo(IntStream.range(0, scenario.ranges().size())
                        .filter(i -> scenario.ranges().get(i).length() > 0)
                        .boxed()
                        .toList());
    }

    @Property(tries = 1000)
    void noRequestExceedsItsLimits(@ForAll("scenarios") Scenario scenario) {
        CoalescerSettings settings = scenario.settings();
        for (CoalescedRequest request : scenario.plan()) {
            if (request.ranges().size() > 1) {
                assertThat(request.span().length()).isLessThanOrEqualTo(settings.maxMergedSize());
            }
            request.parts()
                    .forEach(part -> assertThat(part.range().length()).isLessThanOrEqualTo(settings.maxRequestSize()));
            assertThat(request.gapBytes())
                    .isEqualTo(request.fetchedBytes()
                            - request.ranges().stream()
                                    .mapToLong(i -> scenario.ranges().get(i).length())
                                    .sum());
            assertThat(request.discardGaps())
                    .isEqualTo(request.gapBytes() > settings.discardTolerance() * request.usefulBytes());
        }
    }

    @Property(tries = 1000)
    void gapsAboveTheMinimumSeekAreNeverReadAndGapsBelowItAreWhenTheyFit(@ForAll("scenarios") Scenario scenario) {
        CoalescerSettings settings = scenario.settings();
        List<CoalescedRequest> plan = scenario.plan();
        for (CoalescedRequest request : plan) {
            long cursor = request.span().start();
            for (int index : request.ranges()) {
                CallerRange range = scenario.ranges().get(index);
                assertThat(range.offset() - cursor).as("gap read through").isLessThanOrEqualTo(settings.minSeek());
                cursor = range.end();
            }
            assertThat(cursor).isEqualTo(request.span().end());
        }
        // The greedy rule: a request ends only where the next range could not have joined it, unless merged
        // requests were split at gaps of at least the minimum split gap to use idle connections: then the plan has
        // no more requests than the parallel parts, and at least one such end is a split. (A split can make an
        // earlier end joinable, so not every joinable end is itself a split.)
        boolean joinableEnd = false;
        boolean split = false;
        for (int i = 1; i < plan.size(); i++) {
            CoalescedRequest before = plan.get(i - 1);
            CallerRange next = scenario.ranges().get(plan.get(i).ranges().get(0));
            long gap = next.offset() - before.span().end();
            if (gap <= settings.minSeek() && next.end() - before.span().start() <= settings.maxMergedSize()) {
                joinableEnd = true;
                split |= gap >= settings.minSplitGap();
            }
        }
        if (joinableEnd) {
            assertThat(plan.size())
                    .as("split with no idle connection")
                    .isLessThanOrEqualTo(settings.maxParallelParts());
            assertThat(split)
                    .as("a request ended early, but at no gap worth splitting")
                    .isTrue();
        }
    }

    @Property(tries = 1000)
    void mergedRequestsAreSplitWhileConnectionsWouldBeIdle(@ForAll("scenarios") Scenario scenario) {
        CoalescerSettings settings = scenario.settings();
        List<CoalescedRequest> plan = scenario.plan();
        if (plan.size() < settings.maxParallelParts()) {
            assertThat(widestGapReadThrough(scenario, plan, settings.minSplitGap()))
                    .as("a gap worth splitting is read through while a connection is idle")
                    .isEqualTo(-1);
        }
    }

    @Example
    void manyEvenlySpacedRangesAreSplitIntoRequestsOfEvenSpans() {
        // 64 ranges of 50 bytes every 150 bytes (an ORC stripe's streams): 16 connections, so 16 requests of four
        // ranges each, not 15 of one range and one of 49
        List<CallerRange> ranges =
                IntStream.range(0, 64).mapToObj(i -> range(i * 150L, 50)).toList();
        List<CoalescedRequest> plan =
                new RangeCoalescer(new CoalescerSettings(1000, 100_000, 100_000, 10, 100_000, 16, 64)).coalesce(ranges);
        assertThat(plan)
                .hasSize(16)
                .allSatisfy(request -> assertThat(request.ranges()).hasSize(4));
    }

    @Property(tries = 1000)
    void aPrefetchIsSplitAtEveryWideGapAndOtherwiseMergedAsARead(@ForAll("scenarios") Scenario scenario) {
        CoalescerSettings settings = scenario.settings();
        List<CoalescedRequest> ahead = new RangeCoalescer(settings).coalesceAhead(scenario.ranges());
        assertThat(widestGapReadThrough(scenario, ahead, settings.minSplitGap()))
                .as("a wide gap read through")
                .isEqualTo(-1);
        List<Integer> carried = ahead.stream()
                .flatMap(request -> request.ranges().stream())
                .sorted()
                .toList();
        assertThat(carried)
                .isEqualTo(IntStream.range(0, scenario.ranges().size())
                        .filter(i -> scenario.ranges().get(i).length() > 0)
                        .boxed()
                        .toList());
        // merged requests break where they would with no splitting at all, and at wide gaps only
        CoalescerSettings unsplit = new CoalescerSettings(
                settings.minSeek(),
                settings.maxMergedSize(),
                settings.maxRequestSize(),
                settings.discardTolerance(),
                settings.minPartSize(),
                1);
        Set<Integer> unsplitStarts = firstRanges(new RangeCoalescer(unsplit).coalesce(scenario.ranges()));
        Set<Integer> aheadStarts = firstRanges(ahead);
        assertThat(aheadStarts).containsAll(unsplitStarts);
        for (int start : aheadStarts) {
            if (!unsplitStarts.contains(start)) {
                CallerRange range = scenario.ranges().get(start);
                long previousEnd = scenario.ranges().stream()
                        .filter(other -> other.length() > 0 && other.end() <= range.offset())
                        .mapToLong(CallerRange::end)
                        .max()
                        .orElseThrow();
                assertThat(range.offset() - previousEnd)
                        .as("split at a narrow gap")
                        .isGreaterThanOrEqualTo(settings.minSplitGap());
            }
        }
    }

    private static Set<Integer> firstRanges(List<CoalescedRequest> plan) {
        return plan.stream().map(request -> request.ranges().get(0)).collect(Collectors.toSet());
    }

    @Example
    void aPrefetchOfAColumnProjectionSkipsTheUnreadColumnsHoweverManyRequestsThatMakes() {
        // 30 row groups of three chunks (id 100, name 600, score 100 bytes): a prefetch of id and score reads no
        // name chunk; a row group's score and the next one's id lie side by side and share a request
        List<CallerRange> projected = new ArrayList<>();
        for (int rowGroup = 0; rowGroup < 30; rowGroup++) {
            projected.add(range(rowGroup * 800L, 100));
            projected.add(range(rowGroup * 800L + 700, 100));
        }
        RangeCoalescer coalescer =
                new RangeCoalescer(new CoalescerSettings(1000, 100_000, 100_000, 10, 100_000, 4, 64));
        List<CoalescedRequest> ahead = coalescer.coalesceAhead(projected);
        assertThat(ahead).hasSize(31);
        assertThat(ahead.stream().mapToLong(CoalescedRequest::gapBytes).sum()).isZero();
        assertThat(coalescer.coalesce(projected))
                .as("a read waited for: as many requests as connections")
                .hasSize(4);
    }

    /** The widest gap of at least {@code atLeast} bytes that a request reads through, or -1. */
    private static long widestGapReadThrough(Scenario scenario, List<CoalescedRequest> plan, long atLeast) {
        long widest = -1;
        for (CoalescedRequest request : plan) {
            for (int i = 1; i < request.ranges().size(); i++) {
                long gap = scenario.ranges().get(request.ranges().get(i)).offset()
                        - scenario.ranges().get(request.ranges().get(i - 1)).end();
                if (gap >= atLeast) {
                    widest = Math.max(widest, gap);
                }
            }
        }
        return widest;
    }

    @Example
    void aColumnReadersChunksWithWideGapsComeInOneRequestEachWhileConnectionsAreIdle() {
        // three 200-byte chunks of twelve, 600 bytes apart: one merged request would carry 1,200 gap bytes
        List<CallerRange> chunks = List.of(range(0, 200), range(800, 200), range(1600, 200));
        RangeCoalescer coalescer = new RangeCoalescer(new CoalescerSettings(1000, 10_000, 10_000, 10, 400, 16, 64));
        assertThat(coalescer.coalesce(chunks))
                .extracting(CoalescedRequest::span)
                .containsExactly(new ByteRange(0, 200), new ByteRange(800, 1000), new ByteRange(1600, 1800));
        // with two connections, the split that leaves the longer half shortest (the lowest offset among equals)
        List<CallerRange> uneven = List.of(range(0, 200), range(500, 200), range(1600, 200));
        assertThat(new RangeCoalescer(new CoalescerSettings(1000, 10_000, 10_000, 10, 400, 2, 64)).coalesce(uneven))
                .extracting(CoalescedRequest::span)
                .containsExactly(new ByteRange(0, 700), new ByteRange(1600, 1800));
        assertThat(new RangeCoalescer(new CoalescerSettings(1000, 10_000, 10_000, 10, 400, 2, 64)).coalesce(chunks))
                .extracting(CoalescedRequest::span)
                .containsExactly(new ByteRange(0, 200), new ByteRange(800, 1800));
        // a gap below the minimum split gap is read through: the request it would save is worth more
        assertThat(new RangeCoalescer(new CoalescerSettings(1000, 10_000, 10_000, 10, 400, 16, 601)).coalesce(chunks))
                .hasSize(1);
    }

    @Property(tries = 1000)
    void mergedRequestsAreCutOnlyAtGapsIntoPiecesOfEvenParts(@ForAll("scenarios") Scenario scenario) {
        CoalescerSettings settings = scenario.settings();
        long max = settings.maxRequestSize();
        for (CoalescedRequest request : scenario.plan()) {
            List<List<RequestPart>> pieces = new ArrayList<>();
            for (RequestPart part : request.parts()) {
                if (pieces.isEmpty()
                        || part.range().start() != last(last(pieces)).range().end()) {
                    pieces.add(new ArrayList<>());
                }
                last(pieces).add(part);
            }
            long wanted = Math.min(settings.maxParallelParts(), request.span().length() / settings.minPartSize());
            assertThat((long) pieces.size()).as("pieces").isLessThanOrEqualTo(Math.max(1, wanted));
            if (request.ranges().size() == 1) {
                assertThat(pieces).hasSize(1);
            }
            Set<Long> rangeStarts = request.ranges().stream()
                    .map(i -> scenario.ranges().get(i).offset())
                    .collect(Collectors.toSet());
            Set<Long> rangeEnds = request.ranges().stream()
                    .map(i -> scenario.ranges().get(i).end())
                    .collect(Collectors.toSet());
            for (List<RequestPart> piece : pieces) {
                long start = piece.get(0).range().start();
                long end = last(piece).range().end();
                assertThat(rangeStarts)
                        .as("a piece starts where a range starts")
                        .contains(start);
                assertThat(rangeEnds).as("a piece ends where a range ends").contains(end);
                assertThat((long) piece.size()).isEqualTo((end - start + max - 1) / max);
                LongSummaryStatistics sizes =
                        piece.stream().mapToLong(part -> part.range().length()).summaryStatistics();
                assertThat(sizes.getMax() - sizes.getMin()).isLessThanOrEqualTo(1);
            }
            for (int i = 0; i < pieces.size() && pieces.size() > 1; i++) {
                long pieceSpan = last(pieces.get(i)).range().end()
                        - pieces.get(i).get(0).range().start();
                assertThat(pieceSpan)
                        .as("a cut piece is at least the minimum part size")
                        .isGreaterThanOrEqualTo(settings.minPartSize());
                if (i + 1 < pieces.size()) {
                    assertThat(pieceSpan)
                            .as("every piece but the last reaches its share of the span")
                            .isGreaterThanOrEqualTo((request.span().length() + wanted - 1) / wanted);
                }
            }
        }
    }

    private static <T> T last(List<T> list) {
        return list.get(list.size() - 1);
    }

    @Example
    void aMergedRequestIsCutAtItsGapsIntoParallelPartsOfAtLeastTheMinimumSize() {
        // ten 50-byte ranges every 150 bytes: a span of 1,400; parts of at least 400, at most 4 in parallel, so
        // 3 pieces of a share of 467 bytes each, but the last would be 200 bytes: too small to stand alone
        List<CallerRange> ranges =
                IntStream.range(0, 10).mapToObj(i -> range(i * 150L, 50)).toList();
        RangeCoalescer coalescer = new RangeCoalescer(new CoalescerSettings(1000, 10_000, 10_000, 10, 400, 4));
        List<CoalescedRequest> plan = coalescer.coalesce(ranges);
        assertThat(plan).hasSize(1);
        assertThat(plan.get(0).parts())
                .extracting(RequestPart::range)
                .containsExactly(new ByteRange(0, 500), new ByteRange(600, 1400));
        assertThat(plan.get(0).gapBytes()).isEqualTo(1300 - 500);
        // with room for one part only, or parts of at least the span, nothing is cut
        assertThat(new RangeCoalescer(new CoalescerSettings(1000, 10_000, 10_000, 10, 400, 1))
                        .coalesce(ranges)
                        .get(0)
                        .parts())
                .hasSize(1);
        assertThat(new RangeCoalescer(new CoalescerSettings(1000, 10_000, 10_000, 10, 1400, 4))
                        .coalesce(ranges)
                        .get(0)
                        .parts())
                .hasSize(1);
    }

    @Property(tries = 500)
    void thePlanIsDeterministicAndIndependentOfInputOrder(@ForAll("scenarios") Scenario scenario, @ForAll long seed) {
        List<Integer> permutation = new ArrayList<>(
                IntStream.range(0, scenario.ranges().size()).boxed().toList());
        Collections.shuffle(permutation, new Random(seed));
        List<CallerRange> reordered =
                permutation.stream().map(scenario.ranges()::get).toList();
        List<CoalescedRequest> original = scenario.plan();
        assertThat(scenario.plan()).isEqualTo(original);
        // Map the reordered plan's indices back to the original list's: it must then be the same plan.
        List<CoalescedRequest> mappedBack = new RangeCoalescer(scenario.settings())
                .coalesce(reordered).stream()
                        .map(request -> new CoalescedRequest(
                                request.span(),
                                request.ranges().stream().map(permutation::get).toList(),
                                request.gapBytes(),
                                request.discardGaps(),
                                request.parts().stream()
                                        .map(part -> new RequestPart(
                                                part.range(),
                                                part.segments().stream()
                                                        .map(segment -> new RangeSegment(
                                                                permutation.get(segment.range()), segment.bytes()))
                                                        .toList()))
                                        .toList()))
                        .toList();
        assertThat(mappedBack).isEqualTo(original);
    }

    @Example
    void noRangesOrOnlyEmptyOnesCauseNoRequest() {
        RangeCoalescer coalescer = coalescer(10, 100, 50, 0.25);
        assertThat(coalescer.coalesce(List.of())).isEmpty();
        assertThat(coalescer.coalesce(List.of(range(0, 0), range(500, 0), range(10, 0))))
                .isEmpty();
    }

    @Example
    void anEmptyRangeBetweenTwoOthersIsIgnored() {
        List<CoalescedRequest> plan =
                coalescer(10, 100, 50, 0.25).coalesce(List.of(range(0, 10), range(15, 0), range(20, 10)));
        assertThat(plan).hasSize(1);
        assertThat(plan.get(0).ranges()).containsExactly(0, 2);
        assertThat(plan.get(0).gapBytes()).isEqualTo(10);
    }

    @Example
    void aGapExactlyAtTheMinimumSeekIsReadThroughAndOneByteMoreIsNot() {
        RangeCoalescer coalescer = coalescer(100, 10_000, 10_000, 10);
        List<CoalescedRequest> atThreshold = coalescer.coalesce(List.of(range(0, 50), range(150, 50)));
        assertThat(atThreshold).hasSize(1);
        assertThat(atThreshold.get(0).span()).isEqualTo(new ByteRange(0, 200));
        assertThat(atThreshold.get(0).gapBytes()).isEqualTo(100);

        List<CoalescedRequest> above = coalescer.coalesce(List.of(range(0, 50), range(151, 50)));
        assertThat(above)
                .extracting(CoalescedRequest::span)
                .containsExactly(new ByteRange(0, 50), new ByteRange(151, 201));
        assertThat(above).allSatisfy(request -> assertThat(request.gapBytes()).isZero());
    }

    @Example
    void adjacentRangesMergeWithoutGapBytes() {
        List<CoalescedRequest> plan = coalescer(0, 1000, 1000, 0).coalesce(List.of(range(40, 60), range(0, 40)));
        assertThat(plan).hasSize(1);
        assertThat(plan.get(0).span()).isEqualTo(new ByteRange(0, 100));
        assertThat(plan.get(0).ranges()).containsExactly(1, 0);
        assertThat(plan.get(0).gapBytes()).isZero();
        assertThat(plan.get(0).discardGaps()).isFalse();
    }

    @Example
    void aMergedRequestMayReachTheMaximumMergedSizeButNotPassIt() {
        RangeCoalescer coalescer = coalescer(100, 200, 1000, 1);
        assertThat(coalescer.coalesce(List.of(range(0, 50), range(150, 50)))).hasSize(1);
        assertThat(coalescer.coalesce(List.of(range(0, 50), range(150, 51)))).hasSize(2);
    }

    @Example
    void oneHugeRangeStandsAloneInEvenParts() {
        List<CoalescedRequest> plan =
                coalescer(10, 50, 30, 0.25).coalesce(List.of(range(0, 5), range(10, 100), range(115, 5)));
        assertThat(plan)
                .extracting(CoalescedRequest::span)
                .containsExactly(new ByteRange(0, 5), new ByteRange(10, 110), new ByteRange(115, 120));
        CoalescedRequest huge = plan.get(1);
        assertThat(huge.ranges()).containsExactly(1);
        assertThat(huge.parts())
                .extracting(RequestPart::range)
                .containsExactly(
                        new ByteRange(10, 35), new ByteRange(35, 60), new ByteRange(60, 85), new ByteRange(85, 110));
        assertThat(huge.parts())
                .allSatisfy(part -> assertThat(part.segments()).containsExactly(new RangeSegment(1, part.range())));
        assertThat(huge.parts().get(2).segments().get(0).offsetIn(range(10, 100)))
                .isEqualTo(50);
    }

    @Example
    void aSplitMergedRequestTellsWhichPartsCarryWhichSegments() {
        // [0,30) gap [30,40) [40,70): 70 bytes cut into parts [0,35) and [35,70)
        CoalescedRequest request = coalescer(10, 100, 40, 1)
                .coalesce(List.of(range(0, 30), range(40, 30)))
                .get(0);
        assertThat(request.parts()).hasSize(2);
        assertThat(request.parts().get(0).segments()).containsExactly(new RangeSegment(0, new ByteRange(0, 30)));
        assertThat(request.parts().get(1).segments()).containsExactly(new RangeSegment(1, new ByteRange(40, 70)));

        // [0,50) [55,60): parts [0,30) and [30,60); the first range spans both
        request = coalescer(10, 100, 30, 1)
                .coalesce(List.of(range(0, 50), range(55, 5)))
                .get(0);
        assertThat(request.parts().get(0).segments()).containsExactly(new RangeSegment(0, new ByteRange(0, 30)));
        assertThat(request.parts().get(1).segments())
                .containsExactly(
                        new RangeSegment(0, new ByteRange(30, 50)), new RangeSegment(1, new ByteRange(55, 60)));
    }

    @Example
    void gapBytesAreDiscardedOnlyAboveTheTolerance() {
        // 100 useful bytes, 25 gap bytes: exactly at a tolerance of 0.25, so kept
        RangeCoalescer coalescer = coalescer(1000, 10_000, 10_000, 0.25);
        assertThat(coalescer
                        .coalesce(List.of(range(0, 50), range(75, 50)))
                        .get(0)
                        .discardGaps())
                .isFalse();
        assertThat(coalescer
                        .coalesce(List.of(range(0, 50), range(76, 50)))
                        .get(0)
                        .discardGaps())
                .isTrue();
        assertThat(coalescer(1000, 10_000, 10_000, 0)
                        .coalesce(List.of(range(0, 50), range(51, 50)))
                        .get(0)
                        .discardGaps())
                .isTrue();
    }

    @Example
    void overlappingRangesAreABug() {
        assertThatThrownBy(() -> coalescer(10, 100, 50, 0.25).coalesce(List.of(range(0, 10), range(5, 10))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overlap");
        assertThatThrownBy(() -> range(-1, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> range(Long.MAX_VALUE, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<CoalescerSettings> settings = Combinators.combine(
                        Arbitraries.longs().between(0, 500),
                        Arbitraries.longs().between(1, 3000),
                        Arbitraries.longs().between(50, 1000),
                        Arbitraries.doubles().between(0, 2).ofScale(2),
                        Arbitraries.longs().between(1, 4000),
                        Arbitraries.integers().between(1, 8),
                        Arbitraries.frequencyOf(
                                Tuple.of(4, Arbitraries.longs().between(1, 1500)),
                                Tuple.of(1, Arbitraries.just(Long.MAX_VALUE))))
                .as(CoalescerSettings::new);
        // Each range: a gap after the previous one, then its length; zero is common for both.
        Arbitrary<long[]> gapAndLength = Combinators.combine(
                        Arbitraries.longs().between(0, 1200).edgeCases(edges -> edges.add(0L)),
                        Arbitraries.longs().between(0, 2500).edgeCases(edges -> edges.add(0L)))
                .as((gap, length) -> new long[] {gap, length});
        return Combinators.combine(settings, gapAndLength.list().ofMaxSize(40), Arbitraries.longs())
                .as((coalescerSettings, layout, seed) -> new Scenario(coalescerSettings, shuffled(layout, seed)));
    }

    private static List<CallerRange> shuffled(List<long[]> layout, long seed) {
        List<CallerRange> ranges = new ArrayList<>();
        long cursor = 0;
        for (long[] gapAndLength : layout) {
            CallerRange range = range(cursor + gapAndLength[0], gapAndLength[1]);
            ranges.add(range);
            cursor = range.end();
        }
        Collections.shuffle(ranges, new Random(seed));
        return ranges;
    }

    private static RangeCoalescer coalescer(long minSeek, long maxMerged, long maxRequest, double tolerance) {
        return new RangeCoalescer(new CoalescerSettings(minSeek, maxMerged, maxRequest, tolerance));
    }

    private static CallerRange range(long offset, long length) {
        return new CallerRange(offset, length);
    }
}
