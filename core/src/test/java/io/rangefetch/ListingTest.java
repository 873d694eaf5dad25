package io.rangefetch;

import static io.rangefetch.StreamConfig.LIST_CURSORS;
import static io.rangefetch.StreamConfig.LIST_PAGE_SIZE;
import static io.rangefetch.StreamConfig.LIST_PARALLELISM;
import static io.rangefetch.testing.StreamFixture.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ListedObject;
import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link StreamFactory#list}: the cases the issue names, request by request, against the in-memory client. */
class ListingTest {
    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private void put(String... keys) {
        for (String key : keys) {
            client.put(BUCKET, key, key.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static List<S3Location> locations(String... keys) {
        return Arrays.stream(keys).map(key -> new S3Location(BUCKET, key)).toList();
    }

    private List<String> listKeys(StreamFactory factory, String... wanted) throws IOException {
        try (ObjectListing listing = factory.list(locations(wanted))) {
            return listing.toList().stream()
                    .map(object -> object.location().key())
                    .toList();
        }
    }

    private static String partition(int number) {
        return String.format("t/p=%05d/", number);
    }

    @Test
    void theBlogsCaseTakesThreeCalls() throws IOException {
        for (int p = 0; p < 2400; p++) {
            for (int f = 0; f < 10; f++) {
                client.put(BUCKET, partition(p) + "part-" + f + ".parquet", new byte[1]);
            }
        }
        List<String> wanted = new ArrayList<>();
        IntStream.range(0, 100).forEach(p -> wanted.add(partition(p)));
        IntStream.range(2300, 2400).forEach(p -> wanted.add(partition(p)));
        StreamFactory factory = fixture.factory();

        List<String> keys = listKeys(factory, wanted.toArray(String[]::new));

        assertThat(keys).hasSize(2000).startsWith("t/p=00000/part-0.parquet").endsWith("t/p=02399/part-9.parquet");
        assertThat(client.count("LIST")).isLessThanOrEqualTo(3);
        assertThat(factory.statistics().listRequests()).isEqualTo(client.count("LIST"));
    }

    @Test
    void everyPartitionCostsWhatPagingThroughTheirCommonPrefixCosts() throws IOException {
        for (int p = 0; p < 240; p++) {
            for (int f = 0; f < 10; f++) {
                client.put(BUCKET, partition(p) + "part-" + f, new byte[1]);
            }
        }
        StreamFactory factory =
                fixture.factory(StreamConfig.builder().set(LIST_PAGE_SIZE, 100).build());

        List<String> keys = listKeys(
                factory,
                IntStream.range(0, 240).mapToObj(ListingTest::partition).toArray(String[]::new));

        assertThat(keys).hasSize(2400);
        assertThat(client.count("LIST")).isEqualTo(24);
    }

    @Test
    void charactersSortingBeforeTheSlashAndLongerNumbersAreNotTakenForAPartition() throws IOException {
        put("t/p=1!x/a", "t/p=1-x/a", "t/p=1.x/a", "t/p=1/a", "t/p=1/b", "t/p=10/a", "t/p=2/a", "t/p=2x/a");
        StreamFactory factory =
                fixture.factory(StreamConfig.builder().set(LIST_PAGE_SIZE, 1).build());

        assertThat(listKeys(factory, "t/p=1/", "t/p=2/")).containsExactly("t/p=1/a", "t/p=1/b", "t/p=2/a");
        // without the slash a location is a key or a directory, never a mere prefix
        assertThat(listKeys(factory, "t/p=1", "t/p=2")).containsExactly("t/p=1/a", "t/p=1/b", "t/p=2/a");
    }

    @Test
    void duplicatesNestingExactKeysFolderMarkersAndEmptyLocations() throws IOException {
        put("t/p=1/", "t/p=1/a", "t/p=1/x/", "t/p=1/x/b", "t/p=2/c", "t/p=3/d", "t/p=3/e");
        StreamFactory factory =
                fixture.factory(StreamConfig.builder().set(LIST_PAGE_SIZE, 2).build());

        assertThat(listKeys(factory, "t/p=1/x/", "t/p=1/", "t/p=1/", "t/p=3/e", "t/p=9/", "t/nothing"))
                .containsExactly("t/p=1/a", "t/p=1/x/b", "t/p=3/e");
        assertThat(listKeys(factory)).isEmpty();
    }

    @Test
    void keysOfTheLongestLengthS3Allows() throws IOException {
        String longest = "t/" + "k".repeat(1022);
        put(longest, "t/" + "k".repeat(1021) + "j");
        StreamFactory factory = fixture.factory();

        assertThat(listKeys(factory, longest)).containsExactly(longest);
        assertThatThrownBy(() -> factory.list(locations(longest + "k")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1025 bytes");
    }

    @Test
    void aServerIgnoringStartAfterGivesTheSameResult() throws IOException {
        IntStream.range(0, 30).forEach(p -> put(partition(p) + "f"));
        client.ignoreStartAfter(true);
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(LIST_PAGE_SIZE, 3)
                .set(LIST_CURSORS, 1)
                .build());

        assertThat(listKeys(factory, partition(4), partition(20), partition(21)))
                .containsExactly(partition(4) + "f", partition(20) + "f", partition(21) + "f");
        // caught ignoring it on the first page, the cursor pages on and never restarts again
        assertThat(client.listRequests().stream().filter(request -> request.startAfter() != null))
                .hasSize(1);
    }

    @Test
    void startAfterSkipsWhatLiesBetweenWantedLocations() throws IOException {
        IntStream.range(0, 50).forEach(p -> put(partition(p) + "f"));
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(LIST_PAGE_SIZE, 5)
                .set(LIST_CURSORS, 1)
                .build());

        assertThat(listKeys(factory, partition(1), partition(40))).hasSize(2);
        // one page from p=1 (p=1..p=5), then a restart just before p=40, whose page ends the cursor
        assertThat(client.listRequests())
                .extracting(ListRequest::startAfter)
                .containsExactly("t/p=00001.", "t/p=00040.");
    }

    @Test
    void aCursorTheReaderHasNotReachedPagesOnUpToTwoPagesAhead() throws IOException {
        // two cursors (p=1.. and p=40..), each over 12 keys in pages of 3: four pages each
        IntStream.range(1, 5).forEach(p -> IntStream.range(0, 3).forEach(f -> put(partition(p) + "f" + f)));
        IntStream.range(40, 44).forEach(p -> IntStream.range(0, 3).forEach(f -> put(partition(p) + "f" + f)));
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(LIST_PAGE_SIZE, 3)
                .set(LIST_CURSORS, 2)
                .build());
        List<String> wanted = new ArrayList<>();
        IntStream.range(1, 5).forEach(p -> wanted.add(partition(p)));
        IntStream.range(40, 44).forEach(p -> wanted.add(partition(p)));

        try (ObjectListing listing = factory.list(locations(wanted.toArray(String[]::new)))) {
            assertThat(listing.next()).isPresent(); // the reader takes the first key of the first cursor's first page
            fixture.awaitQuiet();
            // the first cursor: the page being read and two more; the second, not reached: two pages, sent
            // one after the other as they came, without the reader
            assertThat(client.listRequests()).hasSize(5);
            assertThat(client.listRequests().stream()
                            .filter(request -> request.prefix().startsWith("t/p=0004")))
                    .hasSize(2);
            assertThat(listing.toList()).hasSize(23);
        }
        assertThat(client.listRequests()).hasSize(8);
    }

    @Test
    void directoryBucketsAreListedOneLocationAtATimeWithoutStartAfter() throws IOException {
        String bucket = "data--usw2-az1--x-s3";
        for (String key : List.of("t/p=2/b", "t/p=1/z", "t/p=1/a", "t/p=10/a", "t/p=1-x/a")) {
            client.put(bucket, key, new byte[1]);
        }
        StreamFactory factory =
                fixture.factory(StreamConfig.builder().set(LIST_PAGE_SIZE, 2).build());

        try (ObjectListing listing =
                factory.list(List.of(new S3Location(bucket, "t/p=2/"), new S3Location(bucket, "t/p=1/")))) {
            assertThat(listing.toList())
                    .extracting(object -> object.location().key())
                    .containsExactly("t/p=1/a", "t/p=1/z", "t/p=2/b");
        }
        assertThat(client.listRequests())
                .allSatisfy(request -> assertThat(request.startAfter()).isNull());
    }

    @Test
    void aListedSmallObjectOpensAndReadsWithOneGetUnderIfMatchAndNoHead() throws IOException {
        byte[] data = fixture.put("t/p=1/small.bin", 100_000);
        StreamFactory factory = fixture.factory();
        ListedObject listed;
        try (ObjectListing listing = factory.list(locations("t/p=1/"))) {
            listed = listing.next().orElseThrow();
        }
        client.clearLog();

        byte[] read;
        try (SeekableS3InputStream stream = factory.open(listed.location())) {
            read = stream.readAllBytes();
        }
        fixture.awaitQuiet();

        assertThat(read).isEqualTo(data);
        assertThat(client.count("HEAD")).isZero();
        assertThat(client.gets()).hasSize(1).first().satisfies(get -> {
            assertThat(get.ifMatch()).isEqualTo(listed.etag());
            assertThat(get.byteRange().length()).isEqualTo(data.length);
        });
        assertThat(listed.length()).isEqualTo(data.length);
        assertThat(OpenOptions.of(listed).etag()).contains(listed.etag());
        assertThat(OpenOptions.of(listed).length()).hasValue(listed.length());
    }

    @Test
    void aFailingListNamesBucketAndPrefixAndATransientOneIsRetried() throws IOException {
        put("t/p=1/a", "t/p=2/a");
        StreamFactory factory = fixture.factory();
        InMemoryObjectClient.Fault once = client.addFault(new InMemoryObjectClient.Fault() {
            private boolean thrown;

            @Override
            public synchronized void apply(InMemoryObjectClient.Request request) throws IOException {
                if (request.method().equals("LIST") && !thrown) {
                    thrown = true;
                    throw new HttpStatusException("LIST: 503 SlowDown", 503, null);
                }
            }
        });
        assertThat(listKeys(factory, "t/p=1/")).containsExactly("t/p=1/a");
        assertThat(factory.statistics().throttledResponses()).isEqualTo(1);
        assertThat(factory.statistics().retries()).isEqualTo(1);
        client.removeFault(once);

        client.addFault(InMemoryObjectClient.failWhen(
                request -> request.method().equals("LIST"),
                new HttpStatusException("LIST s3://bucket/t/p=2/: 403 Forbidden", 403, null)));
        try (ObjectListing listing = factory.list(locations("t/p=2/"))) {
            assertThatThrownBy(listing::next)
                    .isInstanceOf(HttpStatusException.class)
                    .hasMessageContaining("s3://bucket/t/p=2/");
            assertThatThrownBy(() -> listing.stream().count())
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(HttpStatusException.class);
        }
    }

    @Test
    void badInputIsTheCallersMistake() {
        StreamFactory factory = fixture.factory();
        assertThatThrownBy(() -> factory.list(null)).isInstanceOf(IllegalArgumentException.class);
        List<S3Location> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> factory.list(withNull)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> factory.list(locations("t/\uD800x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unicode");
    }

    @Test
    void closingAListingStopsItsCursorsAndAClosedFactoryFailsIt() throws Exception {
        IntStream.range(0, 40).forEach(p -> put(partition(p) + "f"));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        client.addFault(request -> {
            if (request.method().equals("LIST") && request.key().startsWith("t/p=0003")) {
                held.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(LIST_PAGE_SIZE, 2)
                .set(LIST_PARALLELISM, 2)
                .build());
        ObjectListing listing = factory.list(locations(partition(1), partition(2), partition(35), partition(36)));
        assertThat(listing.next().map(object -> object.location().key())).contains(partition(1) + "f");
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue(); // the second cursor's page is on the wire

        listing.close();
        release.countDown();
        fixture.awaitQuiet();
        long sent = client.count("LIST");
        assertThatThrownBy(listing::next).isInstanceOf(IOException.class).hasMessageContaining("closed");
        assertThat(client.count("LIST")).isEqualTo(sent);

        ObjectListing second = factory.list(locations(partition(1)));
        factory.close();
        assertThatThrownBy(() -> factory.list(locations(partition(1)))).isInstanceOf(IllegalStateException.class);
        // whatever its page was doing when the factory closed, the listing ends: with its objects or a failure
        try {
            second.toList();
        } catch (IOException expected) {
            assertThat(expected).isNotNull();
        }
        second.close();
    }

    @Test
    void aClientThatCannotListSaysSo() {
        ObjectClient getsOnly = new ObjectClient() {
            @Override
            public ObjectContent get(RangeGetRequest request) {
                throw new UnsupportedOperationException();
            }

            @Override
            public ObjectMetadata head(ObjectAddress object) {
                throw new UnsupportedOperationException();
            }
        };
        try (StreamFactory factory = StreamFactory.create(getsOnly, StreamConfig.defaults());
                ObjectListing listing = factory.list(locations("t/"))) {
            assertThatThrownBy(listing::next)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("does not implement ListObjectsV2");
        }
    }
}
