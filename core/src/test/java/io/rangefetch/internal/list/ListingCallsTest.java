package io.rangefetch.internal.list;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ListedObject;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.ManualTime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * LIST calls of issue 15's wanted sets on both of its layouts, Qubole's 24,000 partitions of one object and the
 * benchmark's 2,400 of ten, with 1,000-key pages and the default cursors and parallelism, against the two
 * baselines counted on the same in-memory bucket: paging through the common prefix and one listing per location.
 * Every result is checked against the keys under the wanted partitions.
 */
class ListingCallsTest {
    private static final String BUCKET = "bucket";
    private static final String ROOT = "t/";
    private static final long SEED = 42;
    private static final ListingSettings SETTINGS = new ListingSettings(1000, 16, 8, Duration.ZERO);

    private final InMemoryObjectClient client = new InMemoryObjectClient();
    private final ExecutorService threads = Executors.newFixedThreadPool(4);
    private final ManualTime time = new ManualTime();
    private final FetchScheduler scheduler = new FetchScheduler(16, threads, threads, time.timeSource());
    private final TreeSet<String> stored = new TreeSet<>(Utf8Order.ORDER);

    @AfterEach
    void stop() {
        scheduler.close(); // shuts its threads down
    }

    /** What a listing of one wanted set took. */
    record Counted(List<String> keys, long calls, int cursors) {}

    @Test
    void qubolesLayoutOf24000PartitionsOfOneObject() throws IOException {
        checkTheThreeSets(24_000, 1);
    }

    @Test
    void theBenchmarksLayoutOf2400PartitionsOfTen() throws IOException {
        checkTheThreeSets(2_400, 10);
    }

    private void checkTheThreeSets(int partitions, int files) throws IOException {
        for (int p = 0; p < partitions; p++) {
            for (int f = 0; f < files; f++) {
                String key = partition(partitions, p) + String.format("part-%02d.bin", f);
                client.put(BUCKET, key, new byte[1]);
                stored.add(key);
            }
        }
        long commonPrefixPages = commonPrefixPages();
        List<Integer> firstLast = new ArrayList<>();
        IntStream.range(0, 100).forEach(firstLast::add);
        IntStream.range(partitions - 100, partitions).forEach(firstLast::add);
        System.out.println("random wanted set drawn with seed " + SEED);
        Random draws = new Random(SEED);
        TreeSet<Integer> random = new TreeSet<>();
        while (random.size() < 200) {
            random.add(draws.nextInt(partitions));
        }
        List<Integer> all = IntStream.range(0, partitions).boxed().toList();

        Counted edges = list(partitions, firstLast);
        assertThat(edges.calls()).as("first-last").isLessThanOrEqualTo(3);

        Counted scattered = list(partitions, new ArrayList<>(random));
        assertThat(scattered.calls())
                .as("random: calls against paging the common prefix")
                .isLessThanOrEqualTo(commonPrefixPages);
        assertThat(scattered.calls())
                .as("random: calls against one listing per location")
                .isLessThanOrEqualTo(perLocationCalls(partitions, random));
        assertThat(scattered.cursors()).as("random: cursors").isGreaterThan(1);

        Counted everything = list(partitions, all);
        assertThat(everything.calls()).as("all").isEqualTo(commonPrefixPages);
        System.out.printf(
                "%,d x %d: first-last %d calls (%d cursors), random %d (%d), all %d (%d); common prefix " + "%d%n",
                partitions,
                files,
                edges.calls(),
                edges.cursors(),
                scattered.calls(),
                scattered.cursors(),
                everything.calls(),
                everything.cursors(),
                commonPrefixPages);
    }

    private static String partition(int partitions, int index) {
        return ROOT
                + String.format(
                        "p=%0" + Math.max(4, Integer.toString(partitions - 1).length()) + "d/", index);
    }

    private Counted list(int partitions, List<Integer> wanted) throws IOException {
        List<String> directories =
                wanted.stream().map(index -> partition(partitions, index)).toList();
        List<String> expected = new ArrayList<>();
        directories.forEach(directory -> expected.addAll(under(directory)));
        client.clearLog();
        List<String> keys = new ArrayList<>();
        int cursors;
        try (ParallelListing listing = ParallelListing.start(
                Map.of(BUCKET, directories),
                SETTINGS,
                scheduler,
                time.timeSource(),
                (request, abort) -> client.list(request),
                entry -> {})) {
            for (ListedObject listed = listing.next(); listed != null; listed = listing.next()) {
                keys.add(listed.location().key());
            }
            cursors = listing.cursorCount();
        }
        assertThat(keys).containsExactlyElementsOf(expected);
        return new Counted(keys, client.count("LIST"), cursors);
    }

    /** The pages of listing the common prefix through, 1,000 keys a page. */
    private long commonPrefixPages() throws IOException {
        long calls = 0;
        ListRequest request = ListRequest.of(BUCKET, ROOT, 1000);
        while (request != null) {
            ListPage page = client.list(request);
            calls++;
            request = page.truncated() ? request.withContinuationToken(page.nextContinuationToken()) : null;
        }
        return calls;
    }

    /** One listing per wanted partition: a call for every started 1,000 keys under it, one at least. */
    private long perLocationCalls(int partitions, TreeSet<Integer> wanted) {
        long calls = 0;
        for (int index : wanted) {
            calls += Math.max(1, (under(partition(partitions, index)).size() + 999) / 1000);
        }
        return calls;
    }

    private List<String> under(String directory) {
        return List.copyOf(stored.subSet(directory, true, directory + Character.MAX_VALUE, false));
    }
}
