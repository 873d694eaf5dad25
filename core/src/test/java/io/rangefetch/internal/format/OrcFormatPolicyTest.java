package io.rangefetch.internal.format;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.OpenOptions;
import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.Setting;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.LogCapture;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OrcFormatPolicyTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int KIB = 1024;
    private static final int MIB = StreamFixture.MIB;
    private static final int LENGTH = 20 * MIB + 123;
    private static final String NOT_ORC = " does not end like an ORC file";

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private static StreamConfig config(long tailSize) {
        return StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * MIB)
                .set(OrcFormatPolicy.TAIL_SIZE, tailSize)
                .build();
    }

    private Settling orcPolicy() {
        return new Settling(new OrcFormatPolicy());
    }

    private SeekableS3InputStream open(StreamConfig config, Settling policy, String key, OpenOptions options) {
        StreamFactory factory = fixture.factory(config, List.of(policy));
        return factory.open(new S3Location(BUCKET, key), options);
    }

    private OpenOptions known(String key) {
        return OpenOptions.builder()
                .length(fixture.length(key))
                .etag(client.etag(BUCKET, key))
                .build();
    }

    private byte[] put(String key, byte[] data) {
        client.put(BUCKET, key, data);
        return data;
    }

    /** Reads {@code [length - tail, length)} positioned and checks the bytes. */
    private static void assertTailReads(SeekableS3InputStream stream, byte[] data, long tail) throws Exception {
        byte[] bytes = new byte[(int) tail];
        stream.readFully(data.length - tail, bytes, 0, bytes.length);
        assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, (int) (data.length - tail), data.length));
    }

    @Test
    void aTailThatFitsInTheOpenFetchCostsOneGetForTheWholeTail() throws Exception {
        byte[] postScript = OrcTails.postScript(9000, 1000, "ORC");
        byte[] data = put("fits.orc", OrcTails.file(LENGTH, postScript, 1));
        long tail = OrcTails.tailLength(postScript, 9000, 1000);
        Settling policy = orcPolicy();
        try (SeekableS3InputStream stream = open(
                StreamConfig.builder().set(CACHE_MAX_MEMORY, 256L * MIB).build(),
                policy,
                "fits.orc",
                OpenOptions.defaults())) {
            policy.awaitSettled();
            fixture.awaitQuiet();
            assertThat(client.gets()).extracting(Request::range).containsExactly("bytes=-" + 256 * KIB);
            assertTailReads(stream, data, tail);
            assertTailReads(stream, data, 256 * KIB);
            assertThat(stream.length()).isEqualTo(LENGTH);
        }
        fixture.awaitQuiet();
        assertThat(client.requests()).hasSize(1);
    }

    @Test
    void aTailLargerThanTheOpenFetchCostsExactlyOneMoreGetForTheMissingBytes() throws Exception {
        byte[] postScript = OrcTails.postScript(250_000, 49_000, "ORC");
        byte[] data = put("large-footer.orc", OrcTails.file(LENGTH, postScript, 2));
        long tail = OrcTails.tailLength(postScript, 250_000, 49_000);
        Settling policy = orcPolicy();
        try (SeekableS3InputStream stream =
                open(config(64 * KIB), policy, "large-footer.orc", OpenOptions.defaults())) {
            policy.awaitSettled();
            assertTailReads(stream, data, tail);
        }
        fixture.awaitQuiet();
        List<Request> requests = client.requests();
        assertThat(requests)
                .extracting(Request::range)
                .containsExactly("bytes=-" + 64 * KIB, new ByteRange(LENGTH - tail, LENGTH - 64 * KIB).toHttpRange());
        assertThat(requests.get(1).ifMatch()).isEqualTo(client.etag(BUCKET, "large-footer.orc"));
    }

    @Test
    void withTheVersionKnownTheTailAndItsMissingBytesArePrefetchedAtOpen() throws Exception {
        byte[] postScript = OrcTails.postScript(250_000, 49_000, "ORC");
        byte[] data = put("known.orc", OrcTails.file(LENGTH, postScript, 3));
        long tail = OrcTails.tailLength(postScript, 250_000, 49_000);
        Settling policy = orcPolicy();
        OpenOptions options = OpenOptions.builder()
                .length(LENGTH)
                .etag(client.etag(BUCKET, "known.orc"))
                .build();
        try (SeekableS3InputStream stream = open(config(64 * KIB), policy, "known.orc", options)) {
            policy.awaitSettled();
            assertTailReads(stream, data, tail);
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .extracting(Request::byteRange)
                .containsExactlyInAnyOrder(
                        new ByteRange(LENGTH - 64 * KIB, LENGTH), new ByteRange(LENGTH - tail, LENGTH - 64 * KIB));
        assertThat(client.requests()).hasSize(2);
    }

    @Test
    void aTailThatIsNotOrcCostsOnlyTheOpenFetchAndOneWarning() throws Exception {
        byte[] withoutOrc = TestData.bytes(LENGTH, 4);
        withoutOrc[LENGTH - 1] = 17; // a postscript length, before random bytes
        List<byte[]> notOrc = List.of(
                withoutOrc,
                OrcTails.file(LENGTH, OrcTails.postScript(9000, 1000, "ORK"), 5),
                withLastByte(OrcTails.file(LENGTH, OrcTails.postScript(9000, 1000, "ORC"), 6), 0),
                OrcTails.file(LENGTH, OrcTails.postScript(LENGTH, 1000, "ORC"), 7));
        for (int i = 0; i < notOrc.size(); i++) {
            String key = "not-orc-" + i + ".orc";
            byte[] data = put(key, notOrc.get(i));
            client.clearLog();
            Settling policy = orcPolicy();
            try (LogCapture log = LogCapture.start();
                    SeekableS3InputStream stream = open(config(64 * KIB), policy, key, OpenOptions.defaults())) {
                policy.awaitSettled();
                assertTailReads(stream, data, 64 * KIB);
                fixture.awaitQuiet();
                assertThat(client.requests()).as(key).extracting(Request::range).containsExactly("bytes=-" + 64 * KIB);
                byte[] head = new byte[1000];
                stream.readFully(0, head, 0, head.length);
                assertThat(head).isEqualTo(Arrays.copyOf(data, head.length));
                assertThat(log.warnings("s3://bucket/" + key + NOT_ORC)).as(key).isEqualTo(1);
            }
        }
    }

    @Test
    void theOrcHintChoosesThePolicyWhateverTheKey() throws Exception {
        byte[] postScript = OrcTails.postScript(250_000, 49_000, "ORC");
        byte[] data = put("part-00000", OrcTails.file(LENGTH, postScript, 8));
        long tail = OrcTails.tailLength(postScript, 250_000, 49_000);
        Settling policy = orcPolicy();
        OpenOptions options = OpenOptions.builder().readPolicy(ReadPolicy.ORC).build();
        try (SeekableS3InputStream stream = open(config(64 * KIB), policy, "part-00000", options)) {
            policy.awaitSettled();
            assertTailReads(stream, data, tail);
        }
        fixture.awaitQuiet();
        assertThat(client.requests()).hasSize(2);
    }

    private static byte[] withLastByte(byte[] data, int last) {
        data[data.length - 1] = (byte) last;
        return data;
    }

    /**
     * Wraps a policy to tell when its sessions' work after open is done: {@code opened()} has returned and every
     * read it asked for has been handed over, with what it chained to the read. So a test can then check which
     * requests were sent without waiting for time to pass.
     */
    private static final class Settling implements FormatPolicy {
        private final FormatPolicy policy;
        private final CountDownLatch opened = new CountDownLatch(1);
        private final List<CompletableFuture<Void>> reads = new CopyOnWriteArrayList<>();

        Settling(FormatPolicy policy) {
            this.policy = policy;
        }

        void awaitSettled() throws Exception {
            assertThat(opened.await(20, TimeUnit.SECONDS))
                    .as("opened() returned")
                    .isTrue();
            CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        }

        @Override
        public String name() {
            return policy.name();
        }

        @Override
        public FormatSession open(FormatStream stream) {
            FormatSession session = policy.open(new Watched(stream));
            return new FormatSession() {
                @Override
                public ReadPolicy readPolicy() {
                    return session.readPolicy();
                }

                @Override
                public long openTailSize() {
                    return session.openTailSize();
                }

                @Override
                public long prefetchEnd() {
                    return session.prefetchEnd();
                }

                @Override
                public void opened() {
                    try {
                        session.opened();
                    } finally {
                        opened.countDown();
                    }
                }

                @Override
                public void afterRead(long position, long length) {
                    session.afterRead(position, length);
                }

                @Override
                public void afterVectoredRead(List<ByteRange> ranges) {
                    session.afterVectoredRead(ranges);
                }

                @Override
                public void close() {
                    session.close();
                }
            };
        }

        /** The stream, with each read settled only after the callbacks chained to it have run. */
        private final class Watched implements FormatStream {
            private final FormatStream stream;

            Watched(FormatStream stream) {
                this.stream = stream;
            }

            @Override
            public String table() {
                return stream.table();
            }

            @Override
            public CompletableFuture<ByteBuffer> read(ByteRange range) {
                CompletableFuture<ByteBuffer> answer = new CompletableFuture<>();
                CompletableFuture<Void> settled = new CompletableFuture<>();
                reads.add(settled);
                stream.read(range).whenComplete((bytes, failure) -> {
                    // completing runs what the policy chained so far, on this thread, before settling
                    if (failure != null) {
                        answer.completeExceptionally(failure);
                    } else {
                        answer.complete(bytes);
                    }
                    settled.complete(null);
                });
                return answer;
            }

            @Override
            public String bucket() {
                return stream.bucket();
            }

            @Override
            public String key() {
                return stream.key();
            }

            @Override
            public String uri() {
                return stream.uri();
            }

            @Override
            public OptionalLong splitEnd() {
                return stream.splitEnd();
            }

            @Override
            public <T> T get(Setting<T> setting) {
                return stream.get(setting);
            }

            @Override
            public OptionalLong knownLength() {
                return stream.knownLength();
            }

            @Override
            public java.util.Optional<String> etag() {
                return stream.etag();
            }

            @Override
            public void prefetch(List<ByteRange> ranges) {
                stream.prefetch(ranges);
            }

            @Override
            public Executor executor() {
                return stream.executor();
            }
        }
    }
}
