package io.rangefetch.it;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Rangefetch's stream against a real S3 server, subclassed once per backend. Bytes are compared with the object
 * byte for byte. Every client reaches the server through an unshaped {@link ShapingProxy}, whose ledger counts the
 * requests on the wire whatever the client (the CRT's included), independently of Rangefetch's statistics.
 */
abstract class StreamSuite extends ProxiedS3ServerTestBase {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * 1024;

    /** The SDK clients a factory can be built on. */
    enum ClientKind {
        NETTY,
        CRT,
        SYNC
    }

    private byte[] patterns;
    private byte[] large;

    StreamSuite() {
        super(NetworkModel.unshaped());
    }

    @BeforeAll
    void uploadObjects() throws IOException {
        patterns = randomBytes(24 * MIB, 1);
        large = randomBytes(64 * MIB, 2);
        try (S3Client s3 = S3Clients.sync(server())) {
            put(s3, "patterns", patterns);
            put(s3, "large", large);
            put(s3, "small", Arrays.copyOf(patterns, 4 * MIB));
        }
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aSequentialReadReturnsTheObjectByteForByte(ClientKind kind) throws IOException {
        withFactory(kind, StreamConfig.defaults(), factory -> {
            try (SeekableS3InputStream stream = factory.open(location("patterns"))) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buffer = new byte[8 * KIB];
                int read;
                while ((read = stream.read(buffer, 0, buffer.length)) >= 0) {
                    out.write(buffer, 0, read);
                }
                assertThat(out.toByteArray()).isEqualTo(patterns);
            }
        });
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void backwardSeeksForwardSkipsAndRandomReadsReturnTheRightBytes(ClientKind kind) throws IOException {
        withFactory(kind, StreamConfig.defaults(), factory -> {
            try (SeekableS3InputStream stream = factory.open(location("patterns"))) {
                SplittableRandom random = new SplittableRandom(kind.ordinal());
                byte[] buffer = new byte[300 * KIB];
                // backward: walk from the end toward the start
                for (long position = patterns.length - 100 * KIB; position > 0; position -= 3 * MIB) {
                    stream.seek(position);
                    assertReads(stream, buffer, 50 * KIB);
                }
                // forward skips of growing size
                stream.seek(0);
                for (int skip = KIB; stream.getPos() + skip + 10 * KIB < patterns.length; skip *= 2) {
                    assertThat(stream.skip(skip)).isEqualTo(skip);
                    assertReads(stream, buffer, 10 * KIB);
                }
                // random positioned and streaming reads
                for (int i = 0; i < 50; i++) {
                    int length = 1 + random.nextInt(buffer.length);
                    long position = random.nextLong(patterns.length - length);
                    stream.readFully(position, buffer, 0, length);
                    assertThat(Arrays.copyOf(buffer, length))
                            .isEqualTo(Arrays.copyOfRange(patterns, (int) position, (int) position + length));
                    stream.seek(random.nextLong(patterns.length - length));
                    assertReads(stream, buffer, length);
                }
                byte[] tail = new byte[1000];
                assertThat(stream.readTail(tail, 0, 1000)).isEqualTo(1000);
                assertThat(tail).isEqualTo(Arrays.copyOfRange(patterns, patterns.length - 1000, patterns.length));
            }
        });
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aFourMebibyteObjectReadTwiceCostsOneGetAndNoHead(ClientKind kind) throws IOException {
        ProxyLedger ledger = countingLedger();
        withFactory(kind, StreamConfig.defaults(), factory -> {
            for (int i = 0; i < 2; i++) {
                try (SeekableS3InputStream stream = factory.open(location("small"))) {
                    byte[] all = stream.readAllBytes();
                    assertThat(all).isEqualTo(Arrays.copyOf(patterns, 4 * MIB));
                }
            }
        });
        assertThat(requestsFor(ledger, "small")).as("%s", ledger).hasSize(1);
        assertThat(ledger.gets()).isEqualTo(1);
        assertThat(ledger.heads()).isZero();
        assertThat(ledger.responseBodyBytes()).isEqualTo(4 * MIB);
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void hundredRandomOneKibReadsOfALargeObjectCostAtMostHundredSmallGets(ClientKind kind) throws IOException {
        ProxyLedger ledger = countingLedger();
        AtomicLong hedges = new AtomicLong();
        withFactory(kind, StreamConfig.defaults(), factory -> {
            SplittableRandom random = new SplittableRandom(42);
            try (SeekableS3InputStream stream = factory.open(
                    location("large"),
                    OpenOptions.builder().length(large.length).build())) {
                byte[] buffer = new byte[KIB];
                for (int i = 0; i < 100; i++) {
                    long position = random.nextLong(large.length - KIB);
                    stream.seek(position);
                    assertReads(stream, buffer, KIB);
                }
            }
            // a GET slow to begin on a busy machine is hedged: its second send is a GET of the same range
            hedges.set(factory.statistics().hedgesSent());
        });
        List<ProxiedRequest> requests = requestsFor(ledger, "large");
        assertThat(requests)
                .as("%s, %s hedges", ledger, hedges)
                .hasSizeBetween(1, 100 + (int) hedges.get())
                .allMatch(r -> r.method().equals("GET"));
        assertThat(ledger.heads()).isZero();
        for (ProxiedRequest request : requests) {
            String range = request.rangeHeader();
            assertThat(range).as("a closed range").startsWith("bytes=");
            String[] bounds = range.substring("bytes=".length()).split("-");
            long length = Long.parseLong(bounds[1]) - Long.parseLong(bounds[0]) + 1;
            assertThat(length).as(range).isLessThanOrEqualTo(64 * KIB + KIB);
            assertThat(request.bodyBytes()).as(range).isEqualTo(length);
        }
    }

    @Test
    void anOverwriteMidReadFailsWithObjectChangedAndNeverMixesVersions() throws IOException {
        byte[] first = randomBytes(16 * MIB, 3);
        byte[] second = randomBytes(16 * MIB, 4);
        // no prefetch and no whole-object read, so the next read after the overwrite needs a GET
        StreamConfig config = StreamConfig.builder()
                .set(PREFETCH_MAX_SIZE, 0)
                .set(SMALL_OBJECT_SIZE, 0)
                .build();
        try (S3Client s3 = S3Clients.sync(proxied())) {
            put(s3, "overwritten", first);
            try (StreamFactory factory = StreamFactory.create(s3, config);
                    SeekableS3InputStream stream = factory.open(location("overwritten"))) {
                byte[] buffer = new byte[MIB];
                stream.readFully(0, buffer, 0, buffer.length);
                assertThat(buffer).isEqualTo(Arrays.copyOf(first, MIB));
                put(s3, "overwritten", second);
                assertThatThrownBy(() -> stream.readFully(8 * MIB, buffer, 0, buffer.length))
                        .isInstanceOf(ObjectChangedException.class)
                        .hasMessageContaining("overwritten");
                // the old version's bytes are dropped too: nothing of either version comes back any more
                assertThatThrownBy(() -> stream.readFully(0, buffer, 0, 100))
                        .isInstanceOf(ObjectChangedException.class);
            }
            // a new stream reads the new version
            try (StreamFactory factory = StreamFactory.create(s3, config);
                    SeekableS3InputStream stream = factory.open(location("overwritten"))) {
                assertThat(stream.readAllBytes()).isEqualTo(second);
            }
        }
    }

    @Test
    void theMemoryBudgetHoldsWhileSixteenStreamsReadAtOnce() throws Exception {
        long budget = 6L * MIB;
        StreamConfig config =
                StreamConfig.builder().set(CACHE_MAX_MEMORY, budget).build();
        ExecutorService readers = Executors.newFixedThreadPool(16);
        S3AsyncClient s3 = S3Clients.nettyAsync(proxied());
        try (s3;
                StreamFactory factory = StreamFactory.create(s3, config)) {
            List<Future<?>> results = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                int reader = i;
                results.add(readers.submit(() -> {
                    String key = reader % 2 == 0 ? "patterns" : "large";
                    byte[] expected = reader % 2 == 0 ? patterns : large;
                    try (SeekableS3InputStream stream = factory.open(location(key))) {
                        long start = (long) reader * MIB;
                        stream.seek(start);
                        byte[] buffer = new byte[64 * KIB];
                        for (int n = 0; n < 64; n++) {
                            assertReads(stream, buffer, buffer.length, expected);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> result : results) {
                result.get(5, TimeUnit.MINUTES);
            }
            assertThat(factory.peakCacheMemoryBytes()).isPositive().isLessThanOrEqualTo(budget);
        } finally {
            readers.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void closingTheFactoryLeavesNoThreadItStarted(ClientKind kind) throws IOException {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        withFactory(kind, StreamConfig.defaults(), factory -> {
            try (SeekableS3InputStream stream = factory.open(location("patterns"))) {
                stream.readFully(MIB, new byte[20 * MIB], 0, 20 * MIB);
            }
            assertThat(threads.newThreads("rangefetch-fetch-")).isNotEmpty();
        });
        threads.assertNoNewThreads("rangefetch-fetch-", Duration.ofSeconds(10));
    }

    /** Builds a factory on a fresh SDK client of the given kind, runs the body, closes both. */
    private void withFactory(ClientKind kind, StreamConfig config, FactoryBody body) throws IOException {
        switch (kind) {
            case NETTY -> {
                try (S3AsyncClient s3 = S3Clients.nettyAsync(proxied());
                        StreamFactory factory = StreamFactory.create(s3, config)) {
                    body.run(factory);
                }
            }
            case CRT -> {
                try (S3AsyncClient s3 = S3Clients.crtAsync(proxied());
                        StreamFactory factory = StreamFactory.create(s3, config)) {
                    body.run(factory);
                }
            }
            case SYNC -> {
                try (S3Client s3 = S3Clients.sync(proxied());
                        StreamFactory factory = StreamFactory.create(s3, config)) {
                    body.run(factory);
                }
            }
        }
    }

    @FunctionalInterface
    private interface FactoryBody {
        void run(StreamFactory factory) throws IOException;
    }

    private void assertReads(SeekableS3InputStream stream, byte[] buffer, int length) throws IOException {
        assertReads(stream, buffer, length, stream.location().key().endsWith("large") ? large : patterns);
    }

    private static void assertReads(SeekableS3InputStream stream, byte[] buffer, int length, byte[] expected)
            throws IOException {
        long position = stream.getPos();
        int filled = 0;
        while (filled < length) {
            int read = stream.read(buffer, filled, length - filled);
            assertThat(read).as("read at %d", position + filled).isPositive();
            filled += read;
        }
        assertThat(Arrays.copyOf(buffer, length))
                .as("bytes at %d", position)
                .isEqualTo(Arrays.copyOfRange(expected, (int) position, (int) position + length));
    }

    /** This class's requests to the object {@code name} in the ledger: another object's never count. */
    private List<ProxiedRequest> requestsFor(ProxyLedger ledger, String name) {
        String path = "/" + bucket() + "/" + key(name);
        return ledger.requests().stream()
                .filter(request ->
                        request.target().equals(path) || request.target().startsWith(path + "?"))
                .toList();
    }

    private S3Location location(String name) {
        return new S3Location(bucket(), key(name));
    }
}
