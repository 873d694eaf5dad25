package io.rangefetch.it;

import static io.rangefetch.StreamConfig.LIST_CURSORS;
import static io.rangefetch.StreamConfig.LIST_PAGE_SIZE;
import static io.rangefetch.StreamConfig.LIST_PARALLELISM;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.ObjectListing;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ListedObject;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link StreamFactory#list} against a real S3 server through the shaping proxy, subclassed once per backend: the
 * result is the union of listing each location on its own (asked of the server with the SDK's paginator), with
 * keys that sort around {@code /}, a folder marker and a key of 1,024 bytes; StartAfter skips what lies between
 * wanted partitions, which the proxy's ledger counts as LIST calls (and not as GETs); a scattered set split after
 * its first page takes no more calls than paging through the common prefix; a listed object then opens with one GET
 * and no HEAD. Over the sync and the async SDK clients.
 */
@Timeout(value = 120, threadMode = ThreadMode.SEPARATE_THREAD)
abstract class ListingSuite extends ProxiedS3ServerTestBase {
    private static final int PARTITIONS = 60;
    private static final int FILES = 3;

    ListingSuite() {
        super(NetworkModel.unshaped());
    }

    /** A name whose key is 1,024 bytes, S3's longest, in segments a file system server can store. */
    private String longName() {
        StringBuilder name = new StringBuilder("long");
        while (key(name.toString()).length() < 1024) {
            name.append(name.length() % 200 == 0 ? '/' : 'k');
        }
        return name.toString();
    }

    private static String partition(int number) {
        return String.format("t/p=%03d/", number);
    }

    @BeforeAll
    void uploadPartitions() {
        try (S3Client s3 = S3Clients.sync(server())) {
            for (int p = 0; p < PARTITIONS; p++) {
                for (int f = 0; f < FILES; f++) {
                    put(s3, partition(p) + "part-" + f, (partition(p) + f).getBytes(StandardCharsets.UTF_8));
                }
            }
            for (String tricky : List.of(
                    "u/p=1!x/a",
                    "u/p=1-x/a",
                    "u/p=1.x/a",
                    "u/p=1/a",
                    "u/p=1/b",
                    "u/p=10/a",
                    "u/p=2/a",
                    "u/p=2x/a",
                    "u/p=1/x/c")) {
                put(s3, tricky, tricky.getBytes(StandardCharsets.UTF_8));
            }
            put(s3, "u/p=3/", new byte[0]); // a folder marker
            put(s3, "u/p=3/d", new byte[] {1});
            put(s3, longName(), new byte[] {2});
        }
        assertThat(key(longName()).getBytes(StandardCharsets.UTF_8).length).isEqualTo(1024);
    }

    private List<S3Location> locations(String... names) {
        return Arrays.stream(names)
                .map(name -> new S3Location(bucket(), key(name)))
                .toList();
    }

    private static List<String> keys(StreamFactory factory, List<S3Location> wanted) throws Exception {
        try (ObjectListing listing = factory.list(wanted)) {
            return listing.toList().stream()
                    .map(object -> object.location().key())
                    .toList();
        }
    }

    /** The definition: each location listed alone by the SDK, filtered as the factory documents, sorted. */
    private List<String> eachAlone(List<S3Location> wanted) {
        TreeSet<String> union = new TreeSet<>((a, b) ->
                Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        try (S3Client s3 = S3Clients.sync(server())) {
            for (S3Location location : wanted) {
                String at = location.key();
                for (S3Object object : s3.listObjectsV2Paginator(
                                request -> request.bucket(bucket()).prefix(at))
                        .contents()) {
                    String key = object.key();
                    boolean under = at.endsWith("/") ? key.startsWith(at) : key.equals(at) || key.startsWith(at + "/");
                    if (under && !key.endsWith("/")) {
                        union.add(key);
                    }
                }
            }
        }
        return new ArrayList<>(union);
    }

    @Test
    void aListingIsTheUnionOfListingEachLocationAloneAndItsCallsAreCountedAsLists() throws Exception {
        List<S3Location> wanted = locations(
                "u/p=1/",
                "u/p=2",
                "u/p=1/x/",
                "u/p=3/",
                "u/p=9/",
                longName(),
                partition(7),
                partition(8),
                partition(40),
                partition(59) + "part-1",
                partition(59) + "part-1");
        List<String> expected = eachAlone(wanted);
        assertThat(expected)
                .contains(key("u/p=1/a"), key("u/p=2/a"), key("u/p=3/d"), key(longName()))
                .doesNotContain(key("u/p=1!x/a"), key("u/p=10/a"), key("u/p=2x/a"), key("u/p=3/"));
        ProxyLedger ledger = countingLedger();
        withFactory(
                StreamConfig.builder()
                        .set(LIST_PAGE_SIZE, 4)
                        .set(LIST_CURSORS, 3)
                        .set(LIST_PARALLELISM, 2)
                        .build(),
                factory -> {
                    assertThat(keys(factory, wanted)).containsExactlyElementsOf(expected);
                    assertThat(ledger.lists())
                            .as("%s", ledger)
                            .isEqualTo(factory.statistics().listRequests())
                            .isPositive();
                    assertThat(ledger.gets()).as("%s", ledger).isZero();
                });
    }

    @Test
    void startAfterSkipsThePartitionsBetweenTheWantedOnes() throws Exception {
        List<S3Location> wanted = new ArrayList<>();
        IntStream.range(0, 5).forEach(p -> wanted.add(locations(partition(p)).get(0)));
        IntStream.range(55, 60).forEach(p -> wanted.add(locations(partition(p)).get(0)));
        ProxyLedger ledger = countingLedger();
        // five partitions of three objects fill a page: the first five, a page past them, the last five
        withFactory(StreamConfig.builder().set(LIST_PAGE_SIZE, 5 * FILES).build(), factory -> {
            assertThat(keys(factory, wanted)).hasSize(10 * FILES).containsExactlyElementsOf(eachAlone(wanted));
            assertThat(ledger.lists()).as("%s", ledger).isLessThanOrEqualTo(3);
        });
    }

    @Test
    void aScatteredSetSplitsAfterItsFirstPageWithinTheBetterBaseline() throws Exception {
        // every third partition: the gaps are two partitions, less than a page, so one cursor starts and its
        // first page shows the keys a partition holds; the cursors it adds stay within both baselines' calls
        List<S3Location> wanted = new ArrayList<>();
        for (int p = 1; p < PARTITIONS; p += 3) {
            wanted.add(locations(partition(p)).get(0));
        }
        int page = 10;
        long commonPrefixPages;
        try (S3Client s3 = S3Clients.sync(server())) {
            commonPrefixPages =
                    s3
                            .listObjectsV2Paginator(request ->
                                    request.bucket(bucket()).prefix(key("t/")).maxKeys(page))
                            .stream()
                            .count();
        }
        List<String> expected = eachAlone(wanted);
        ProxyLedger ledger = countingLedger();
        withFactory(StreamConfig.builder().set(LIST_PAGE_SIZE, page).build(), factory -> {
            assertThat(keys(factory, wanted)).containsExactlyElementsOf(expected);
            assertThat(ledger.lists())
                    .as("%s", ledger)
                    .isLessThanOrEqualTo(commonPrefixPages)
                    .isLessThan(wanted.size());
        });
    }

    @Test
    void aListedObjectOpensWithOneGetAndNoHeadOverTheAsyncClient() throws Exception {
        ProxyLedger ledger = countingLedger();
        try (S3AsyncClient s3 = S3Clients.nettyAsync(proxied());
                StreamFactory factory = StreamFactory.create(s3, StreamConfig.defaults())) {
            List<ListedObject> listed;
            try (ObjectListing listing = factory.list(locations(partition(12)))) {
                listed = listing.toList();
            }
            assertThat(listed).hasSize(FILES);
            assertThat(ledger.lists()).isEqualTo(1);
            ledger.reset();
            byte[] read;
            try (SeekableS3InputStream stream = factory.open(listed.get(1).location())) {
                read = stream.readAllBytes();
            }
            assertThat(new String(read, StandardCharsets.UTF_8)).isEqualTo(partition(12) + 1);
            assertThat(ledger.heads()).as("%s", ledger).isZero();
            assertThat(ledger.gets()).as("%s", ledger).isEqualTo(1);
            assertThat(ledger.requests())
                    .singleElement()
                    .satisfies(request -> assertThat(request.isList()).isFalse());
        }
    }
}
