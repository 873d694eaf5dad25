package io.rangefetch.internal.list;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** {@link ListingPlan}'s cuts before any I/O: by the numbers the names skip, never inside a run. */
class ListingPlanTest {

    private static List<ListTarget> directories(String... names) {
        return ListingPlan.disjoint(Arrays.stream(names).map(ListTarget::under).toList());
    }

    private static List<ListTarget> partitions(int... numbers) {
        return ListingPlan.disjoint(IntStream.of(numbers)
                .mapToObj(n -> ListTarget.under(String.format("t/p=%04d/", n)))
                .toList());
    }

    private static List<String> firsts(List<List<ListTarget>> groups) {
        return groups.stream().map(group -> group.get(0).text()).toList();
    }

    @Test
    void theNumbersTheNamesSkipMeasureAGap() {
        assertThat(ListingPlan.gapUnits("t/p=0099/", "t/p=2300/")).isEqualTo(2200);
        assertThat(ListingPlan.gapUnits("t/p=0099/", "t/p=0120/")).isEqualTo(20);
        assertThat(ListingPlan.gapUnits("t/dt=2026-01-31/", "t/dt=2026-02-01/")).isEqualTo(0);
        assertThat(ListingPlan.gapUnits("t/dt=2026-01-05/", "t/dt=2026-03-01/")).isEqualTo(1);
        // nothing likely lies between: a number and the next, a name and the directory of its name, the next
        // character, and unpadded numbers, which sort p=19 before p=2
        assertThat(ListingPlan.gapUnits("t/p=0099/", "t/p=0100/")).isZero();
        assertThat(ListingPlan.gapUnits("t/p=1", "t/p=1/")).isZero();
        assertThat(ListingPlan.gapUnits("t/p=1/", "t/p=10/")).isZero();
        assertThat(ListingPlan.gapUnits("t/a/", "t/b/")).isZero();
        assertThat(ListingPlan.gapUnits("t/p=19/", "t/p=2/")).isZero();
        // no number to measure by
        assertThat(ListingPlan.gapUnits("t/a/", "t/k/")).isEqualTo(ListingPlan.OPAQUE);
        assertThat(ListingPlan.gapUnits("t/p=1!x/", "t/p=1/")).isEqualTo(ListingPlan.OPAQUE);
        assertThat(ListingPlan.gapUnits("t/p=" + "1".repeat(19) + "/", "t/p=" + "3".repeat(19) + "/"))
                .isEqualTo(ListingPlan.OPAQUE);
    }

    @Test
    void neighboursAPageOfNumbersApartAreCutOthersAreLeftToTheFirstPage() {
        List<ListTarget> firstAndLast = partitions(0, 1, 98, 99, 2300, 2301, 2399);
        assertThat(firsts(ListingPlan.groups(firstAndLast, 16, 1000))).containsExactly("t/p=0000/", "t/p=2300/");

        // scattered, but no two a page of numbers apart: one cursor, which splits when its first page is in
        List<ListTarget> scattered = partitions(3, 40, 200, 650, 1400, 2000, 2390);
        assertThat(ListingPlan.groups(scattered, 16, 1000)).hasSize(1);
        assertThat(ListingPlan.groups(scattered, 16, 100)).hasSize(6); // with pages of 100, all but 3 | 40
    }

    @Test
    void moreWideGapsThanCursorsKeepTheWidest() {
        List<ListTarget> targets = partitions(0, 10, 1000, 9000, 9010);
        assertThat(firsts(ListingPlan.groups(targets, 2, 5))).containsExactly("t/p=0000/", "t/p=9000/");
        assertThat(firsts(ListingPlan.groups(targets, 3, 5))).containsExactly("t/p=0000/", "t/p=1000/", "t/p=9000/");
        assertThat(ListingPlan.groups(targets, 1, 5)).hasSize(1);
    }

    @Test
    void aRunIsNeverCutNotEvenWithPagesOfOneKey() {
        List<ListTarget> run = partitions(IntStream.range(0, 300).toArray());
        assertThat(ListingPlan.groups(run, 16, 1000)).hasSize(1);
        assertThat(ListingPlan.groups(run, 16, 1)).hasSize(1);
    }

    @Test
    void namesThatDifferInNoNumberAreCutWhileTheyAllFitElseLeftToTheFirstPage() {
        List<ListTarget> tables = directories("sales/", "stock/", "users/");
        assertThat(firsts(ListingPlan.groups(tables, 16, 1000))).containsExactly("sales/", "stock/", "users/");

        // every neighbour two letters apart: 39 gaps of unknown size, more than 15 cuts
        List<ListTarget> hashed = directories(IntStream.range(0, 40)
                .mapToObj(i -> "t/h=" + (char) ('a' + 2 * (i / 10)) + (char) ('a' + 2 * (i % 10)) + "/")
                .toArray(String[]::new));
        assertThat(ListingPlan.groups(hashed, 16, 1000)).hasSize(1);
        assertThat(ListingPlan.groups(hashed, 64, 1000)).hasSize(40);
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> ListingPlan.groups(partitions(1), 0, 1000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> ListingPlan.groups(partitions(1), 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
    }
}
