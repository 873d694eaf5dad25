package io.rangefetch.benchmarks.listing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.benchmarks.data.ListingLayout;
import io.rangefetch.benchmarks.data.ListingShape;
import io.rangefetch.benchmarks.data.StoredObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class WantedSetTest {

    @Test
    void theFullLayoutIsTheBlogsSmallerScaleWithZeroPaddedPartitions() {
        ListingLayout layout = ListingLayout.benchmark(ListingShape.BENCHMARK, 1);

        assertThat(layout.partitions()).isEqualTo(2_400);
        assertThat(layout.keys()).hasSize(24_000).isSorted().doesNotHaveDuplicates();
        assertThat(layout.keys(42)).first().isEqualTo("bench/scale-1/listing/p=0042/part-00.bin");
        assertThat(ListingLayout.benchmark(ListingShape.BENCHMARK, 0.001).partitions())
                .isEqualTo(24);
        assertThatThrownBy(() -> layout.partition(2_400)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theStandardSetsAtFullScaleAreTheFirstAndLast100200AtRandomAndAll() {
        ListingLayout layout = ListingLayout.benchmark(ListingShape.BENCHMARK, 1);

        List<WantedSet> sets = WantedSet.standard(layout, 42);

        assertThat(sets)
                .extracting(WantedSet::id)
                .containsExactly(WantedSet.FIRST_LAST, WantedSet.RANDOM, WantedSet.ALL);
        WantedSet firstLast = sets.get(0);
        assertThat(firstLast.directories())
                .hasSize(200)
                .isSorted()
                .startsWith(layout.partition(0), layout.partition(1))
                .endsWith(layout.partition(2_399))
                .contains(layout.partition(99), layout.partition(2_300))
                .doesNotContain(layout.partition(100), layout.partition(2_299));
        assertThat(sets.get(1).directories())
                .hasSize(200)
                .isSorted()
                .doesNotHaveDuplicates()
                .isEqualTo(WantedSet.standard(layout, 42).get(1).directories())
                .isNotEqualTo(WantedSet.standard(layout, 43).get(1).directories());
        assertThat(sets.get(2).directories()).hasSize(2_400);
        assertThat(firstLast.description()).isEqualTo("the first 100 and the last 100 of 2,400 partitions");
    }

    @Test
    void qubolesLayoutIs24000PartitionsOfOneObjectWithTheSameSetsAtFullScale() {
        ListingLayout layout = ListingLayout.benchmark(ListingShape.QUBOLE, 1);

        assertThat(layout.root()).isEqualTo("bench/scale-1/listing-24000x1/");
        assertThat(layout.keys()).hasSize(24_000).isSorted().doesNotHaveDuplicates();
        assertThat(layout.keys(42)).containsExactly("bench/scale-1/listing-24000x1/p=00042/part-00.bin");
        List<WantedSet> sets = WantedSet.standard(layout, 42);
        assertThat(sets.get(0).directories())
                .hasSize(200)
                .startsWith(layout.partition(0))
                .contains(layout.partition(99), layout.partition(23_900))
                .endsWith(layout.partition(23_999));
        assertThat(sets.get(0).description()).isEqualTo("the first 100 and the last 100 of 24,000 partitions");
        assertThat(sets.get(1).directories()).hasSize(200).isSorted().doesNotHaveDuplicates();
        assertThat(sets.get(2).directories()).hasSize(24_000);

        // --scale scales the partitions and the sets at each end alike
        ListingLayout tenth = ListingLayout.benchmark(ListingShape.QUBOLE, 0.1);
        assertThat(tenth.partitions()).isEqualTo(2_400);
        assertThat(tenth.root()).isEqualTo("bench/scale-0.1/listing-24000x1/");
        assertThat(WantedSet.standard(tenth, 42).get(0).directories()).hasSize(20);
    }

    @Test
    void layoutsAreWrittenPartitionsByFiles() {
        assertThat(ListingShape.parse("24000x1")).isEqualTo(ListingShape.QUBOLE);
        assertThat(ListingShape.parse(" 2400X10 ")).isEqualTo(ListingShape.BENCHMARK);
        assertThat(ListingShape.parse("2400 × 10").id()).isEqualTo("2400x10");
        assertThat(ListingShape.parse("500x150").label()).isEqualTo("500 × 150");
        assertThat(ListingLayout.benchmark(ListingShape.parse("500x150"), 1).keys(0))
                .hasSize(150)
                .isSorted();
        for (String bad : new String[] {"lots", "24000", "24000x0", "199x10", "1000000x2", "-5x1"}) {
            assertThatThrownBy(() -> ListingShape.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad.replace("1000000x2", "1000000 x 2")
                            .replace("199x10", "199 x 10")
                            .replace("24000x0", "24000 x 0"));
        }
    }

    @Test
    void setsShrinkWithTheLayoutButKeepAtLeastTwoAtEachEnd() {
        List<WantedSet> sets = WantedSet.standard(ListingLayout.benchmark(ListingShape.BENCHMARK, 0.005), 42);

        assertThat(sets.get(0).directories()).hasSize(4);
        assertThat(sets.get(1).directories()).hasSize(4);
        assertThat(sets.get(2).directories()).hasSize(24);
    }

    @Test
    void theExpectedObjectsAreThoseUnderAWantedDirectoryInKeyOrder() {
        List<StoredObject> everything = List.of(
                object("t/p=1!x/a"),
                object("t/p=1/a"),
                object("t/p=1/b"),
                object("t/p=10/a"),
                object("t/p=2/a"),
                object("t/p=3/a"));
        WantedSet set = new WantedSet("some", "some", List.of("t/p=1/", "t/p=3/"));

        assertThat(set.expected(everything))
                .extracting(StoredObject::key)
                .containsExactly("t/p=1/a", "t/p=1/b", "t/p=3/a");
        assertThat(set.commonPrefix()).isEqualTo("t/");
        assertThat(WantedSet.commonPrefix(List.of("t/p=1/"))).isEqualTo("t/p=1/");
        assertThat(WantedSet.commonPrefix(List.of("a/p=1/", "b/p=1/"))).isEmpty();
    }

    private static StoredObject object(String key) {
        return new StoredObject(key, 1, "\"e\"");
    }
}
