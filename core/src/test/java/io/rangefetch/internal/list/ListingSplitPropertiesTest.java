package io.rangefetch.internal.list;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ListedObject;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.ManualTime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.statistics.Statistics;

/**
 * Splitting against its promises, on numbered partitions of random sizes (some empty, some with siblings that
 * sort around {@code /}: {@code p=7!x/}, {@code p=7-x/}, {@code p=7.x/}, folder markers, nested directories) and
 * random wanted sets (runs, every n-th partition, scattered ones, exact names, the siblings, partitions that do not
 * exist), whatever the page size, cursors and parallelism: the listing is exactly the keys under the wanted
 * locations, in order; and every cursor beyond the first costs at most one call over what a single cursor takes (a
 * cut costs a call at most, nothing in a gap of a page or more). Coverage statistics check that splits happen at
 * all. jqwik prints the seed of a failing try.
 */
class ListingSplitPropertiesTest {
    private static final String BUCKET = "data";

    record Scenario(
            List<Integer> sizes,
            boolean padded,
            List<Integer> tricky,
            List<String> wanted,
            int pageSize,
            int cursors,
            int parallelism) {

        String partition(int number) {
            return padded ? String.format("t/p=%04d", number) : "t/p=" + number;
        }

        TreeSet<String> keys() {
            TreeSet<String> keys = new TreeSet<>(Utf8Order.ORDER);
            for (int p = 0; p < sizes.size(); p++) {
                for (int f = 0; f < sizes.get(p); f++) {
                    keys.add(partition(p) + "/f" + f);
                }
            }
            for (int p : tricky) {
                for (String sibling : List.of("!x/a", "-x/a", ".x/a", "/", "/sub/a", "/sub/")) {
                    keys.add(partition(p) + sibling);
                }
            }
            return keys;
        }
    }

    @Property(tries = 300)
    void splittingKeepsTheResultAndCostsAtMostACallPerCursor(@ForAll("scenarios") Scenario scenario)
            throws IOException {
        InMemoryObjectClient client = new InMemoryObjectClient();
        TreeSet<String> keys = scenario.keys();
        keys.forEach(key -> client.put(BUCKET, key, new byte[1]));
        List<String> expected = keys.stream()
                .filter(key -> !key.endsWith("/")
                        && scenario.wanted().stream()
                                .anyMatch(location -> location.endsWith("/")
                                        ? key.startsWith(location)
                                        : key.equals(location) || key.startsWith(location + "/")))
                .toList();

        Listed single = list(client, scenario, 1);
        Listed split = list(client, scenario, scenario.cursors());

        assertThat(single.keys()).containsExactlyElementsOf(expected);
        assertThat(split.keys()).containsExactlyElementsOf(expected);
        assertThat(split.calls()).isLessThanOrEqualTo(single.calls() + Math.max(0, split.cursors() - 1));
        Statistics.label("split").collect(split.cursors() > split.planned());
        Statistics.label("split").coverage(coverage -> coverage.check(true).percentage(share -> share > 10)); // ~20 %
    }

    record Listed(List<String> keys, long calls, int cursors, int planned) {}

    private static Listed list(InMemoryObjectClient client, Scenario scenario, int cursors) throws IOException {
        ListingSettings settings =
                new ListingSettings(scenario.pageSize(), cursors, scenario.parallelism(), Duration.ZERO);
        List<ListTarget> targets = new ArrayList<>();
        scenario.wanted().forEach(key -> targets.addAll(ListingPlan.targetsOf(key)));
        int planned = ListingPlan.groups(ListingPlan.disjoint(targets), cursors, scenario.pageSize())
                .size();
        client.clearLog();
        ExecutorService threads = Executors.newFixedThreadPool(3);
        ManualTime time = new ManualTime();
        List<String> keys = new ArrayList<>();
        int count;
        try (FetchScheduler scheduler = new FetchScheduler(4, threads, threads, time.timeSource());
                ParallelListing listing = ParallelListing.start(
                        Map.of(BUCKET, scenario.wanted()),
                        settings,
                        scheduler,
                        time.timeSource(),
                        (request, abort) -> client.list(request),
                        entry -> {})) {
            for (ListedObject listed = listing.next(); listed != null; listed = listing.next()) {
                keys.add(listed.location().key());
            }
            count = listing.cursorCount();
        }
        return new Listed(keys, client.count("LIST"), count, planned);
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<List<Integer>> uniform = Combinators.combine(
                        Arbitraries.integers().between(1, 200).withDistribution(RandomDistribution.uniform()),
                        Arbitraries.integers().between(0, 24))
                .as((count, size) -> java.util.Collections.nCopies(count, size));
        Arbitrary<List<Integer>> uneven = Arbitraries.integers()
                .between(0, 24)
                .list()
                .ofMinSize(1)
                .ofMaxSize(200)
                .withSizeDistribution(RandomDistribution.uniform());
        Arbitrary<List<Integer>> sizes = Arbitraries.oneOf(uniform, uneven);
        return sizes.flatMap(partitions -> {
            int count = partitions.size();
            Arbitrary<Integer> number = Arbitraries.integers().between(0, count + 5); // a few that do not exist
            Arbitrary<String> location = Combinators.combine(
                            number, Arbitraries.of("/", "/", "/", "", "/sub/", "!x/", "-x"))
                    .as((n, tail) -> n + "|" + tail);
            Arbitrary<List<String>> scattered =
                    location.list().ofMaxSize(60).withSizeDistribution(RandomDistribution.uniform());
            Arbitrary<List<String>> dense = Combinators.combine(
                            Arbitraries.integers().between(0, count),
                            Arbitraries.integers().between(0, count))
                    .as((from, length) -> {
                        List<String> run = new ArrayList<>();
                        for (int n = from; n < Math.min(count, from + length); n++) {
                            run.add(n + "|/");
                        }
                        return run;
                    });
            Arbitrary<List<String>> strided = Combinators.combine(
                            Arbitraries.integers().between(0, count),
                            Arbitraries.integers().between(2, 9))
                    .as((from, stride) -> {
                        List<String> every = new ArrayList<>();
                        for (int n = from; n < count; n += stride) {
                            every.add(n + "|/");
                        }
                        return every;
                    });
            Arbitrary<List<String>> wanted = Combinators.combine(
                            scattered, dense, strided, Arbitraries.integers().between(0, 3))
                    .as((some, run, every, kind) -> {
                        List<String> all = new ArrayList<>(kind == 1 ? List.of() : some);
                        if (kind == 1 || kind == 3 || all.isEmpty()) {
                            all.addAll(run);
                        }
                        if (kind >= 2) {
                            all.addAll(every);
                        }
                        return all;
                    });
            return Combinators.combine(
                            Arbitraries.of(true, true, false),
                            Arbitraries.integers().between(0, count).list().ofMaxSize(4),
                            wanted,
                            Arbitraries.integers().between(2, 40).withDistribution(RandomDistribution.uniform()),
                            Arbitraries.integers().between(1, 16),
                            Arbitraries.integers().between(1, 4))
                    .as((padded, tricky, picked, pageSize, cursors, parallelism) -> {
                        Scenario draft =
                                new Scenario(partitions, padded, tricky, List.of(), pageSize, cursors, parallelism);
                        List<String> locations = picked.stream()
                                .map(pick -> {
                                    String[] parts = pick.split("\\|", -1);
                                    return draft.partition(Integer.parseInt(parts[0])) + parts[1];
                                })
                                .toList();
                        return new Scenario(partitions, padded, tricky, locations, pageSize, cursors, parallelism);
                    });
        });
    }
}
