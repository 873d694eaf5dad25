package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class StridePatternTest {
    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    private static final long OBJECT = 256 * MIB;

    private static PlannerSettings settings(int sequentialReads, long initial, long max) {
        return new PlannerSettings(64 * KIB, 8 * MIB, 8 * MIB, sequentialReads, initial, max, 16, 2 * MIB, 512 * KIB);
    }

    private static final PlannerSettings DEFAULTS = settings(2, 4 * MIB, 64 * MIB);

    private static List<ByteRange> observe(StridePattern pattern, long position, long length) {
        return pattern.observe(position, length, OBJECT, Long.MAX_VALUE, AccessHint.DETECT);
    }

    @Test
    void theThirdReadAtOneStridePredictsTheReadsOfTheInitialWindow() {
        StridePattern pattern = new StridePattern(DEFAULTS);
        assertThat(observe(pattern, 4 * MIB, 50_000)).isEmpty();
        assertThat(observe(pattern, 4 * MIB + 150_000, 50_000)).isEmpty();
        List<ByteRange> predicted = observe(pattern, 4 * MIB + 300_000, 50_000);
        long end = 4 * MIB + 350_000;
        assertThat(predicted).isNotEmpty();
        for (int i = 0; i < predicted.size(); i++) {
            long start = 4 * MIB + 300_000 + (i + 1) * 150_000L;
            assertThat(predicted.get(i)).isEqualTo(new ByteRange(start, start + 50_000));
        }
        assertThat(predicted.get(predicted.size() - 1).start()).isLessThan(end + 4 * MIB);
        assertThat(predicted.get(predicted.size() - 1).start() + 150_000).isGreaterThanOrEqualTo(end + 4 * MIB);
    }

    @Test
    void theWindowIsRefilledOnceHalfOfItIsBehindAndNeverPredictsAReadTwice() {
        StridePattern pattern = new StridePattern(DEFAULTS);
        List<ByteRange> all = new ArrayList<>();
        List<Integer> refills = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            List<ByteRange> predicted = observe(pattern, i * 150_000L, 50_000);
            if (!predicted.isEmpty()) {
                refills.add(i);
            }
            all.addAll(predicted);
        }
        assertThat(refills.get(0)).isEqualTo(2);
        assertThat(refills.size()).as("refills %s", refills).isGreaterThan(2).isLessThan(40);
        for (int i = 0; i < all.size(); i++) {
            assertThat(all.get(i)).isEqualTo(new ByteRange((i + 3) * 150_000L, (i + 3) * 150_000L + 50_000));
        }
        // a reader that stops leaves no more than the span it covered predicted ahead of it
        long lastRead = 199 * 150_000L + 50_000;
        assertThat(all.get(all.size() - 1).end() - lastRead).isLessThanOrEqualTo(lastRead);
    }

    @Test
    void theReadsAReaderLeavesBehindWhenItBreaksThePatternAreItsWaste() {
        StridePattern pattern = new StridePattern(DEFAULTS);
        observe(pattern, 0, 1000);
        observe(pattern, 10_000, 1000);
        List<ByteRange> predicted = observe(pattern, 20_000, 1000);
        assertThat(predicted).isNotEmpty();
        assertThat(pattern.pending()).isEqualTo(predicted.size() * 1000L);
        observe(pattern, 30_000, 1000); // the first predicted read: one fewer left behind
        assertThat(pattern.pending()).isEqualTo((predicted.size() - 1) * 1000L);
        assertThat(pattern.takeAbandoned())
                .as("nothing left behind while the pattern holds")
                .isZero();
        observe(pattern, 5_000_000, 1000);
        assertThat(pattern.takeAbandoned()).isEqualTo((predicted.size() - 1) * 1000L);
        assertThat(pattern.takeAbandoned()).as("taken once").isZero();
        assertThat(pattern.pending()).isZero();
    }

    @Test
    void aReadOffTheStrideForgetsThePatternAndARetryIsNotAStep() {
        StridePattern pattern = new StridePattern(DEFAULTS);
        observe(pattern, 0, 1000);
        observe(pattern, 10_000, 1000);
        assertThat(observe(pattern, 10_000, 1000)).as("the same read again").isEmpty();
        assertThat(observe(pattern, 20_000, 1000))
                .as("still the third read at the stride")
                .isNotEmpty();
        assertThat(observe(pattern, 31_000, 1000))
                .as("another stride: its first")
                .isEmpty();
        assertThat(observe(pattern, 42_000, 1000))
                .as("the second of the new stride")
                .isNotEmpty();
        assertThat(observe(pattern, 64_000, 2000)).as("another length").isEmpty();
        assertThat(observe(pattern, 5_000, 2000)).as("backwards").isEmpty();
    }

    @Test
    void randomHintsPrefetchOffSmallerStridesThanTheReadAndHugeStridesPredictNothing() {
        StridePattern random = new StridePattern(DEFAULTS);
        for (int i = 0; i < 10; i++) {
            assertThat(random.observe(i * 10_000L, 1000, OBJECT, Long.MAX_VALUE, AccessHint.RANDOM))
                    .isEmpty();
        }
        StridePattern off = new StridePattern(settings(2, 4 * MIB, 0));
        StridePattern overlapping = new StridePattern(DEFAULTS);
        StridePattern huge = new StridePattern(DEFAULTS);
        for (int i = 0; i < 10; i++) {
            assertThat(observe(off, i * 10_000L, 1000)).isEmpty();
            assertThat(observe(overlapping, i * 500L, 1000)).isEmpty();
            assertThat(observe(huge, i * 64 * MIB, 1000)).isEmpty();
        }
    }

    @Test
    void readsThatFollowOneAnotherAreAStrideOfTheirLength() {
        StridePattern pattern = new StridePattern(DEFAULTS);
        observe(pattern, 0, 64 * KIB);
        observe(pattern, 64 * KIB, 64 * KIB);
        List<ByteRange> predicted = observe(pattern, 128 * KIB, 64 * KIB);
        assertThat(predicted.get(0)).isEqualTo(new ByteRange(192 * KIB, 256 * KIB));
        assertThat(predicted).hasSize((int) (4 * MIB / (64 * KIB)));
    }

    @Property(tries = 1000)
    void predictionsArePastTheReadDisjointAtTheStrideAndWithinTheObjectAndSplit(
            @ForAll @LongRange(min = 1, max = 300_000) long length,
            @ForAll @LongRange(min = 0, max = 3_000_000) long gap,
            @ForAll @IntRange(min = 1, max = 4) int sequentialReads,
            @ForAll @IntRange(min = 1, max = 60) int reads,
            @ForAll @LongRange(min = 0, max = 40_000_000) long first,
            @ForAll @LongRange(min = 1, max = 60_000_000) long splitEnd) {
        StridePattern pattern = new StridePattern(settings(sequentialReads, 256 * KIB, 16 * MIB));
        long stride = length + gap;
        long objectLength = 50_000_000;
        long predictedEnd = -1;
        for (int i = 0; i < reads; i++) {
            long position = first + i * stride;
            if (position >= objectLength) {
                break;
            }
            List<ByteRange> predicted = pattern.observe(position, length, objectLength, splitEnd, AccessHint.DETECT);
            if (i < sequentialReads) {
                assertThat(predicted).isEmpty();
            }
            for (ByteRange range : predicted) {
                assertThat(range.start())
                        .isGreaterThanOrEqualTo(position + stride)
                        .isGreaterThanOrEqualTo(predictedEnd);
                assertThat((range.start() - first) % stride).isZero();
                assertThat(range.end()).isLessThanOrEqualTo(Math.min(objectLength, splitEnd));
                assertThat(range.length()).isLessThanOrEqualTo(length);
                predictedEnd = range.end();
            }
        }
    }
}
