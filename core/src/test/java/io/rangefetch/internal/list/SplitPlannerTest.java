package io.rangefetch.internal.list;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@link FirstPage} and {@link SplitPlanner}: what a first page teaches and the cuts it leads to, on pages taken
 * from a sorted key set as a cursor's first request would get them.
 */
class SplitPlannerTest {
    private final TreeSet<String> keys = new TreeSet<>(Utf8Order.ORDER);

    private void partitions(int from, int to, int files) {
        for (int p = from; p < to; p++) {
            for (int f = 0; f < files; f++) {
                keys.add(String.format("t/p=%04d/part-%03d", p, f));
            }
        }
    }

    private static List<ListTarget> wanted(IntStream numbers) {
        return numbers.mapToObj(n -> ListTarget.under(String.format("t/p=%04d/", n)))
                .toList();
    }

    /** The first page of a cursor over {@code targets}: the keys after just before the first, {@code size} of them. */
    private List<String> firstPage(List<ListTarget> targets, int size) {
        return keys.tailSet(Utf8Order.justBefore(targets.get(0).text()), false).stream()
                .limit(size)
                .toList();
    }

    @Test
    void aFirstPageCountsTheTargetsAndGapsItPassedWhole() {
        keys.addAll(List.of(
                "t/p=1/a", "t/p=1/b", "t/p=2/a", "t/p=2/b", "t/p=2/c", "t/p=3/a", "t/p=4/a", "t/p=9/a", "t/q/a"));
        List<ListTarget> targets =
                List.of(ListTarget.under("t/p=1/"), ListTarget.under("t/p=3/"), ListTarget.under("t/p=9/"));

        FirstPage seen = FirstPage.observe(targets, firstPage(targets, 7));

        assertThat(seen).isEqualTo(new FirstPage(2, false, 1, 3, 2, 3, 1, 0, 0));
        assertThat(seen.keysPerTarget()).isEqualTo(1.5);
        assertThat(seen.keysPerGapUnit()).isEqualTo(3);
        assertThat(seen.keysPerOpaqueGap()).isEqualTo(1.5);
        assertThat(FirstPage.observe(targets, firstPage(targets, 9)))
                .as("past the last target")
                .isNull();
        assertThat(FirstPage.observe(targets, List.of("t/p=0/a")))
                .as("before the first")
                .isNull();
    }

    @Test
    void aRunOfPartitionsIsNeverSplit() {
        partitions(0, 2400, 10);
        List<ListTarget> all = wanted(IntStream.range(0, 2400));

        FirstPage seen = FirstPage.observe(all, firstPage(all, 1000));

        assertThat(seen.current()).isEqualTo(99);
        assertThat(SplitPlanner.cuts(all, seen, 1000, 15)).isEmpty(); // every cut would cost a call
    }

    @Test
    void aGapOfAPageIsCutFreeFirstThenPaidCutsWithinTheBudget() {
        // 100 keys a partition: the 20 partitions between p=19 and p=40 hold 2,000 keys, though 20 < 1,000
        partitions(0, 60, 100);
        List<ListTarget> targets = wanted(IntStream.concat(IntStream.range(0, 20), IntStream.range(40, 60)));
        assertThat(ListingPlan.groups(targets, 16, 1000)).hasSize(1);

        FirstPage seen = FirstPage.observe(targets, firstPage(targets, 1000));
        List<Integer> cuts = SplitPlanner.cuts(targets, seen, 1000, 15);

        // one cursor would take 4 pages from here, paging through 5: one paid cut, in the larger half (after p=49,
        // the 30th target)
        assertThat(cuts).containsExactly(19, 29);
        assertThat(SplitPlanner.cuts(targets, seen, 1000, 1)).containsExactly(19);
    }

    @Test
    void aFirstPageInsideOneHugeDirectoryMakesEveryNumberedGapAPage() {
        partitions(0, 8, 3000);
        List<ListTarget> targets = wanted(IntStream.of(1, 3, 5, 7));

        FirstPage seen = FirstPage.observe(targets, firstPage(targets, 1000));

        assertThat(seen.inTarget()).isTrue();
        assertThat(seen.keysPerTarget()).isEqualTo(1000);
        assertThat(SplitPlanner.cuts(targets, seen, 1000, 15)).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(SplitPlanner.cuts(targets, seen, 1000, 15)).hasSize(3);
    }

    @Test
    void cutsComeBestFirstSoFewerCursorsTakeAPrefixOfThem() {
        partitions(0, 3000, 10);
        List<Integer> every7th = new ArrayList<>();
        for (int p = 5; p < 3000; p += 7) {
            every7th.add(p);
        }
        List<ListTarget> targets = wanted(every7th.stream().mapToInt(Integer::intValue));
        FirstPage seen = FirstPage.observe(targets, firstPage(targets, 100));

        List<Integer> fifteen = SplitPlanner.cuts(targets, seen, 100, 15);

        // pages of 100 keys: one cursor skips enough of the 60-key gaps to leave room for every paid cut
        assertThat(fifteen)
                .hasSize(15)
                .doesNotHaveDuplicates()
                .allSatisfy(cut -> assertThat(cut).isBetween(seen.current(), targets.size() - 2));
        for (int most = 1; most < fifteen.size(); most++) {
            assertThat(SplitPlanner.cuts(targets, seen, 100, most)).isEqualTo(fifteen.subList(0, most));
        }
        assertThat(SplitPlanner.cuts(targets, seen, 100, 0)).isEmpty();
    }

    @Test
    void aCursorAtItsLastTargetHasNothingToSplit() {
        partitions(0, 3, 2000);
        List<ListTarget> targets = wanted(IntStream.of(0, 2));
        List<String> atTheLast = new ArrayList<>(firstPage(targets, 1000));
        atTheLast.add("t/p=0002/part-000");

        assertThat(SplitPlanner.cuts(targets, FirstPage.observe(targets, atTheLast), 1000, 15))
                .isEmpty();
    }
}
