package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_PART_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.RecordingPolicy;
import io.rangefetch.testing.RecordingPolicy.Call;
import io.rangefetch.testing.StreamFixture;
import java.io.FileNotFoundException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a format policy's open fetch sends, and what the reader's reads then need not send. */
class OpenFetchTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final int TAIL = 100_000;
    private static final StreamConfig CONFIG = RecordingPolicy.recConfig();

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private SeekableS3InputStream open(RecordingPolicy policy, String key, OpenOptions options) {
        return fixture.factory(CONFIG, List.of(policy)).open(new S3Location(BUCKET, key), options);
    }

    private OpenOptions known(String key) {
        return OpenOptions.builder()
                .length(fixture.length(key))
                .etag(client.etag(BUCKET, key))
                .build();
    }

    private static byte[] readFully(SeekableS3InputStream stream, long position, int length) throws Exception {
        byte[] bytes = new byte[length];
        stream.readFully(position, bytes, 0, length);
        return bytes;
    }

    private static byte[] slice(byte[] data, long from, long to) {
        return Arrays.copyOfRange(data, (int) from, (int) to);
    }

    @Test
    void aTailFetchOnAnObjectOfUnknownLengthIsTheOneGetThatServesTheFooterReadsAndTheLength() throws Exception {
        byte[] data = fixture.put("footer.rec", 20 * MIB + 11);
        long length = data.length;
        RecordingPolicy policy = RecordingPolicy.fetching("rec", TAIL);
        try (SeekableS3InputStream stream = open(policy, "footer.rec", OpenOptions.defaults())) {
            byte[] magic = new byte[8];
            assertThat(stream.readTail(magic, 0, magic.length)).isEqualTo(8);
            assertThat(magic).isEqualTo(slice(data, length - 8, length));
            assertThat(stream.length()).isEqualTo(length);
            assertThat(readFully(stream, length - TAIL, TAIL)).isEqualTo(slice(data, length - TAIL, length));
            byte[] tail = new byte[TAIL];
            assertThat(stream.readTail(tail, 0, TAIL)).isEqualTo(TAIL);
            assertThat(tail).isEqualTo(slice(data, length - TAIL, length));
            assertThat(policy.awaitOpened()).isTrue();
        }
        fixture.awaitQuiet();
        assertThat(client.requests())
                .extracting(Request::method, Request::range)
                .containsExactly(tuple("GET", "bytes=-" + TAIL));
        assertThat(policy.count(Call.OPENED)).isEqualTo(1);
        assertThat(policy.reads()).startsWith(ByteRange.ofLength(length - 8, 8));
    }

    @Test
    void aStreamingReadRightAfterOpenWaitsForTheOpenFetchInsteadOfSendingItsOwnFirstGet() throws Exception {
        byte[] data = fixture.put("scan.rec", 20 * MIB);
        RecordingPolicy policy = RecordingPolicy.fetching("rec", TAIL);
        try (SeekableS3InputStream stream = open(policy, "scan.rec", OpenOptions.defaults())) {
            byte[] first = new byte[1000];
            int read = stream.read(first);
            assertThat(read).isPositive();
            assertThat(Arrays.copyOf(first, read)).isEqualTo(Arrays.copyOf(data, read));
        }
        fixture.awaitQuiet();
        // the open fetch learns the version and the length; the read waits for it, then reads from 0 on that version
        assertThat(client.requests()).extracting(Request::method).containsExactly("GET", "GET");
        assertThat(client.requests().get(0).range()).isEqualTo("bytes=-" + TAIL);
        assertThat(client.requests().get(1).range()).startsWith("bytes=0-");
        assertThat(client.requests().get(1).ifMatch()).isEqualTo(client.etag(BUCKET, "scan.rec"));
        assertThat(client.count("HEAD")).isZero();
    }

    @Test
    void aTailFetchOnASmallObjectOfKnownVersionFetchesItWholeInOneRoundOfParallelParts() throws Exception {
        byte[] data = fixture.put("small.rec", 2 * MIB + 5);
        String etag = client.etag(BUCKET, "small.rec");
        RecordingPolicy policy = RecordingPolicy.fetching("rec", TAIL);
        try (SeekableS3InputStream stream = open(policy, "small.rec", known("small.rec"))) {
            // known length: opened() comes at once, on the opening thread
            assertThat(policy.count(Call.OPENED)).isEqualTo(1);
            assertThat(readFully(stream, 0, data.length)).isEqualTo(data);
        }
        fixture.awaitQuiet();
        List<Request> gets = client.gets();
        assertThat(gets)
                .hasSizeGreaterThan(1)
                .allSatisfy(get -> assertThat(get.ifMatch()).isEqualTo(etag));
        assertThat(client.requests()).hasSameSizeAs(gets);
        List<ByteRange> parts = gets.stream()
                .map(Request::byteRange)
                .sorted(Comparator.comparingLong(ByteRange::start))
                .toList();
        long cursor = 0;
        for (ByteRange part : parts) {
            assertThat(part.start()).as("parts %s", parts).isEqualTo(cursor);
            assertThat(part.length()).isGreaterThanOrEqualTo(CONFIG.get(SMALL_OBJECT_PART_SIZE));
            cursor = part.end();
        }
        assertThat(cursor).isEqualTo(data.length);
        assertThat(policy.count(Call.OPENED)).isEqualTo(1);
    }

    @Test
    void aTailFetchOnALargeObjectOfKnownVersionIsOnePrefetchOfExactlyTheTail() throws Exception {
        byte[] data = fixture.put("large.rec", 20 * MIB);
        long length = data.length;
        RecordingPolicy policy = RecordingPolicy.fetching("rec", 1000);
        try (SeekableS3InputStream stream = open(policy, "large.rec", known("large.rec"))) {
            assertThat(readFully(stream, length - 1000, 1000)).isEqualTo(slice(data, length - 1000, length));
            // fetched ahead of the reader, at prefetch priority, whatever its cause (a footer) says in events
            assertThat(stream.statistics().prefetchedBytes()).isEqualTo(1000);
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .as("a tail reaches the end: the minimum request does not apply")
                .containsExactly(new ByteRange(length - 1000, length));
        assertThat(policy.count(Call.OPENED)).isEqualTo(1);
    }

    @Test
    void aMissingObjectFailsTheReadersReadAndTheSessionIsNeverOpened() throws Exception {
        RecordingPolicy policy = RecordingPolicy.fetching("rec", TAIL);
        try (SeekableS3InputStream stream = open(policy, "missing.rec", OpenOptions.defaults())) {
            assertThatThrownBy(() -> stream.readTail(new byte[10], 0, 10))
                    .isInstanceOf(FileNotFoundException.class)
                    .hasMessageContaining("missing.rec");
            assertThatThrownBy(stream::read).isInstanceOf(FileNotFoundException.class);
        }
        // opened() would come on the fetch thread that ran the open fetch
        fixture.awaitQuiet();
        assertThat(policy.count(Call.OPEN_TAIL_SIZE)).isEqualTo(1);
        assertThat(policy.count(Call.OPENED)).isZero();
    }

    @Test
    void withoutAnOpenFetchASessionIsOpenedAtOnceWhenTheLengthIsKnownAndOpeningSendsNothing() throws Exception {
        byte[] data = fixture.put("plain.rec", MIB);
        RecordingPolicy policy = RecordingPolicy.fetching("rec", 0);
        try (SeekableS3InputStream stream = open(policy, "plain.rec", known("plain.rec"))) {
            assertThat(policy.count(Call.OPENED)).isEqualTo(1);
            fixture.awaitQuiet();
            assertThat(client.requests()).isEmpty();
            assertThat(readFully(stream, 10, 10)).isEqualTo(slice(data, 10, 20));
        }
        // the read needed the small object's first part only; a fetch thread may still be sending the others
        fixture.awaitQuiet();
        int sent = client.requests().size();
        try (SeekableS3InputStream stream = open(policy, "plain.rec", OpenOptions.defaults())) {
            // a new factory does not know the length: opened() waits for a read to learn it (and never comes)
            fixture.awaitQuiet();
            assertThat(policy.count(Call.OPENED)).isEqualTo(1);
            assertThat(client.requests()).hasSize(sent);
        }
    }

    @Test
    void bytesAPolicyReadForItselfAreNotServedSoTheStreamStillMovesToANewVersionSilently() throws Exception {
        fixture.put("moved.ftr", 4 * MIB);
        CompletableFuture<ByteBuffer> policyRead = new CompletableFuture<>();
        FormatPolicy footerReader = new FormatPolicy() {
            @Override
            public String name() {
                return "ftr";
            }

            @Override
            public FormatSession open(FormatStream stream) {
                return new FormatSession() {
                    @Override
                    public long openTailSize() {
                        return TAIL;
                    }

                    @Override
                    public void opened() {
                        long length = stream.knownLength().orElseThrow();
                        stream.read(new ByteRange(length - 8, length)).whenComplete((bytes, failure) -> {
                            if (failure != null) {
                                policyRead.completeExceptionally(failure);
                            } else {
                                policyRead.complete(bytes);
                            }
                        });
                    }
                };
            }
        };
        StreamFactory factory = fixture.factory(
                StreamConfig.builder()
                        .set(CACHE_MAX_MEMORY, 256L * MIB)
                        .set(SMALL_OBJECT_SIZE, 0)
                        .set(FORMAT_EXTENSIONS, java.util.Map.of("ftr", List.of("ftr")))
                        .build(),
                List.of(footerReader));
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, "moved.ftr"))) {
            assertThat(policyRead.get(20, TimeUnit.SECONDS).remaining()).isEqualTo(8);
            byte[] replaced = new byte[4 * MIB + 1];
            Arrays.fill(replaced, (byte) 7); // other bytes, another ETag
            client.put(BUCKET, "moved.ftr", replaced);
            // the reader's first bytes are not cached: their GET finds the new version, and nothing was served yet
            assertThat(readFully(stream, 0, 4096)).isEqualTo(slice(replaced, 0, 4096));
            assertThat(stream.length()).isEqualTo(replaced.length);
            fixture.awaitQuiet();
            assertThat(stream.statistics().bytesServed())
                    .as("the reader's bytes only")
                    .isEqualTo(4096);
        }
    }
}
