package io.rangefetch;

import static io.rangefetch.StreamConfig.LIST_CURSORS;
import static io.rangefetch.StreamConfig.LIST_PAGE_SIZE;
import static io.rangefetch.StreamConfig.LIST_PARALLELISM;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ListedObject;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The listing against its definition: for random keys (made of pieces that sort around {@code /}: {@code !},
 * {@code -}, {@code .}, digits, a character past the surrogates and one outside the BMP) and random wanted
 * locations, {@link StreamFactory#list} gives exactly the union of listing each location on its own, in UTF-8
 * binary order, with no duplicate; whatever the page size, cursors and parallelism, and also on a server that
 * ignores {@code StartAfter} and on a directory bucket. jqwik prints the seed of a failing try.
 */
class ListingPropertiesTest {
    private static final List<String> PIECES = List.of(
            "p=1",
            "p=10",
            "p=2",
            "p=1!x",
            "p=1-x",
            "p=1.x",
            "/",
            "/",
            "a",
            "b",
            "!",
            "-",
            ".",
            "0",
            "9",
            "\u00e9",
            "\uE000",
            "\uD83D\uDE00");

    record Scenario(
            Set<String> keys,
            List<String> wanted,
            int pageSize,
            int cursors,
            int parallelism,
            boolean ignoresStartAfter,
            boolean directoryBucket) {}

    @Property(tries = 300)
    void aListingIsTheOrderedUnionOfListingEachLocationAlone(@ForAll("scenarios") Scenario scenario)
            throws IOException {
        InMemoryObjectClient client = new InMemoryObjectClient();
        String bucket = scenario.directoryBucket() ? "data--usw2-az1--x-s3" : "data";
        for (String key : scenario.keys()) {
            client.put(bucket, key, key.getBytes(StandardCharsets.UTF_8));
        }
        client.ignoreStartAfter(scenario.ignoresStartAfter());
        StreamConfig config = StreamConfig.builder()
                .set(LIST_PAGE_SIZE, scenario.pageSize())
                .set(LIST_CURSORS, scenario.cursors())
                .set(LIST_PARALLELISM, scenario.parallelism())
                .build();
        List<String> expected = eachAlone(client, bucket, scenario.wanted());
        client.clearLog();
        List<ListedObject> listed;
        try (StreamFactory factory = StreamFactory.create(client, config);
                ObjectListing listing = factory.list(scenario.wanted().stream()
                        .map(key -> new S3Location(bucket, key))
                        .toList())) {
            listed = listing.toList();
        }
        assertThat(listed).extracting(object -> object.location().key()).containsExactlyElementsOf(expected);
        for (ListedObject object : listed) {
            assertThat(object.location().bucket()).isEqualTo(bucket);
            assertThat(object.length()).isEqualTo(object.location().key().getBytes(StandardCharsets.UTF_8).length);
            assertThat(object.etag())
                    .isEqualTo(client.etag(bucket, object.location().key()));
        }
        if (scenario.directoryBucket()) {
            assertThat(client.listRequests())
                    .allSatisfy(request -> assertThat(request.startAfter()).isNull());
        }
    }

    /** The definition: each location listed on its own, page by page, filtered; the union sorted, once each. */
    private static List<String> eachAlone(InMemoryObjectClient client, String bucket, List<String> wanted)
            throws IOException {
        TreeMap<String, String> union = new TreeMap<>(InMemoryObjectClient.UTF8_ORDER);
        for (String location : wanted) {
            String prefix = location.substring(0, location.lastIndexOf('/') + 1); // a directory bucket's kind
            ListRequest request = ListRequest.of(bucket, prefix, 1000);
            while (request != null) {
                ListPage page = client.list(request);
                for (ListedObject entry : page.objects()) {
                    String key = entry.location().key();
                    boolean under = location.endsWith("/")
                            ? key.startsWith(location)
                            : key.equals(location) || key.startsWith(location + "/");
                    if (under && !key.endsWith("/")) {
                        union.put(key, key);
                    }
                }
                request = page.truncated() ? request.withContinuationToken(page.nextContinuationToken()) : null;
            }
        }
        return new ArrayList<>(union.keySet());
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<String> key =
                Arbitraries.of(PIECES).list().ofMinSize(1).ofMaxSize(5).map(pieces -> String.join("", pieces));
        Arbitrary<Set<String>> keys = key.set().ofMinSize(0).ofMaxSize(40);
        return keys.flatMap(existing -> {
            List<String> known = new ArrayList<>(existing);
            // a wanted location: a piece of an existing key (cut anywhere), or a made-up one
            Arbitrary<String> cut = known.isEmpty()
                    ? key
                    : Arbitraries.of(known)
                            .flatMap(k -> Arbitraries.integers()
                                    .between(1, k.length())
                                    .map(end -> {
                                        int at = Character.isLowSurrogate(k.charAt(end - 1)) || end == k.length()
                                                ? end
                                                : Character.isHighSurrogate(k.charAt(end - 1)) ? end + 1 : end;
                                        return k.substring(0, at);
                                    }));
            Arbitrary<String> location = Arbitraries.frequencyOf(
                    net.jqwik.api.Tuple.of(3, cut),
                    net.jqwik.api.Tuple.of(1, key),
                    net.jqwik.api.Tuple.of(1, cut.map(text -> text.endsWith("/") ? text : text + "/")));
            return Combinators.combine(
                            location.list().ofMinSize(0).ofMaxSize(8),
                            Arbitraries.integers().between(1, 6),
                            Arbitraries.integers().between(1, 5),
                            Arbitraries.integers().between(1, 3),
                            Arbitraries.of(false, false, true),
                            Arbitraries.of(false, false, false, true))
                    .as((wanted, pageSize, cursors, parallelism, ignores, directory) ->
                            new Scenario(existing, wanted, pageSize, cursors, parallelism, ignores, directory));
        });
    }
}
