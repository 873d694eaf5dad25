package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.LogCapture;
import io.rangefetch.testing.RecordingPolicy;
import io.rangefetch.testing.RecordingPolicy.Call;
import io.rangefetch.testing.StreamFixture;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A format policy that throws costs its stream the policy, with one warning, and never a byte. */
class FormatSessionGuardTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final String FAILED = "Format policy 'rec' failed on ";
    private static final StreamConfig CONFIG = RecordingPolicy.recConfig();

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    private StreamFactory factoryWith(FormatPolicy policy) {
        return fixture.factory(CONFIG, List.of(policy));
    }

    /** Reads {@code key} every way a stream can, checking each answer, and closes it. */
    private void readEveryWay(StreamFactory factory, String key, byte[] data) throws Exception {
        try (SeekableS3InputStream stream = factory.open(new S3Location(BUCKET, key))) {
            byte[] head = new byte[1000];
            int read = stream.read(head);
            assertThat(read).isPositive();
            assertThat(Arrays.copyOf(head, read)).isEqualTo(Arrays.copyOf(data, read));
            byte[] middle = new byte[5000];
            stream.readFully(MIB, middle, 0, middle.length);
            assertThat(middle).isEqualTo(Arrays.copyOfRange(data, MIB, MIB + middle.length));
            byte[] tail = new byte[300];
            assertThat(stream.readTail(tail, 0, tail.length)).isEqualTo(tail.length);
            assertThat(tail).isEqualTo(Arrays.copyOfRange(data, data.length - tail.length, data.length));
            FileRange range = FileRange.of(3L * MIB, 7000);
            stream.readVectored(List.of(range), ByteBuffer::allocate);
            ByteBuffer vectored = range.data().get(30, TimeUnit.SECONDS);
            byte[] bytes = new byte[vectored.remaining()];
            vectored.get(bytes);
            assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, 3 * MIB, 3 * MIB + 7000));
            assertThat(stream.length()).isEqualTo(data.length);
        }
    }

    private void assertOneWarningPerStreamAndRightBytes(RecordingPolicy policy) throws Exception {
        byte[] first = fixture.put("first.rec", 4 * MIB + 17);
        byte[] second = fixture.put("second.rec", 5 * MIB + 3);
        StreamFactory factory = factoryWith(policy);
        try (LogCapture log = LogCapture.start()) {
            readEveryWay(factory, "first.rec", first);
            readEveryWay(factory, "second.rec", second);
            assertThat(log.warnings(FAILED + "s3://bucket/first.rec")).isEqualTo(1);
            assertThat(log.warnings(FAILED + "s3://bucket/second.rec")).isEqualTo(1);
        }
    }

    @Test
    void aPolicyThatThrowsInOpenIsOffWithOneWarningPerStream() throws Exception {
        RecordingPolicy policy =
                RecordingPolicy.fetching("rec", 100_000).failingIn(Call.OPEN, new IllegalStateException("broken open"));
        assertOneWarningPerStreamAndRightBytes(policy);
        fixture.awaitQuiet();
        assertThat(policy.count(Call.OPEN)).isEqualTo(2);
        assertThat(policy.count(Call.OPEN_TAIL_SIZE)).isZero();
        assertThat(policy.count(Call.AFTER_READ)).isZero();
        // no open fetch was sent: every stream's first GET is its own first read's
        assertThat(client.gets()).noneMatch(request -> request.range().startsWith("bytes=-100000"));
    }

    @Test
    void aPolicyThatThrowsInOpenFetchIsOffWithOneWarningPerStreamAndSendsNothing() throws Exception {
        RecordingPolicy policy = RecordingPolicy.fetching("rec", 100_000)
                .failingIn(Call.OPEN_TAIL_SIZE, new IllegalArgumentException("broken open fetch"));
        assertOneWarningPerStreamAndRightBytes(policy);
        fixture.awaitQuiet();
        assertThat(policy.count(Call.OPEN_TAIL_SIZE)).isEqualTo(2);
        for (Call later : List.of(Call.OPENED, Call.AFTER_READ, Call.AFTER_VECTORED_READ, Call.CLOSE)) {
            assertThat(policy.count(later)).as(later.name()).isZero();
        }
        assertThat(client.gets()).noneMatch(request -> request.range().startsWith("bytes=-100000"));
    }

    @Test
    void aPolicyThatThrowsAfterAReadIsNeverCalledAgainOnThatStream() throws Exception {
        RecordingPolicy policy = RecordingPolicy.fetching("rec", 0)
                .failingIn(Call.AFTER_READ, new IndexOutOfBoundsException("broken afterRead"));
        assertOneWarningPerStreamAndRightBytes(policy);
        assertThat(policy.count(Call.AFTER_READ)).as("once per stream").isEqualTo(2);
        assertThat(policy.count(Call.AFTER_VECTORED_READ)).isZero();
        assertThat(policy.count(Call.CLOSE)).isZero();
    }

    @Test
    void aMissingLibraryInAPolicyIsALinkageErrorThatTurnsItOffToo() throws Exception {
        RecordingPolicy policy = RecordingPolicy.fetching("rec", 0)
                .failingIn(Call.AFTER_VECTORED_READ, new NoClassDefFoundError("org/apache/orc/OrcProto"));
        assertOneWarningPerStreamAndRightBytes(policy);
        assertThat(policy.count(Call.AFTER_VECTORED_READ)).isEqualTo(2);
        assertThat(policy.count(Call.CLOSE)).isZero();
    }

    @Test
    void theGuardSaysWhenItIsOff() throws Exception {
        RecordingPolicy policy = RecordingPolicy.fetching("rec", 0)
                .failingIn(Call.AFTER_READ, new IllegalStateException("broken afterRead"));
        try (LogCapture log = LogCapture.start()) {
            GuardedFormatSession guard =
                    (GuardedFormatSession) GuardedFormatSession.open(policy, new KeyOnly(BUCKET, "guarded.rec"));
            assertThat(guard.isOff()).isFalse();
            assertThat(guard.readPolicy()).isEqualTo(ReadPolicy.AUTO);
            guard.afterRead(0, 10);
            assertThat(guard.isOff()).isTrue();
            guard.afterRead(10, 10);
            guard.close();
            assertThat(policy.count(Call.AFTER_READ)).isEqualTo(1);
            assertThat(policy.count(Call.CLOSE)).isZero();
            assertThat(log.warnings(FAILED + "s3://bucket/guarded.rec")).isEqualTo(1);
        }
    }

    @Test
    void aSmallObjectSizeThatThrowsOrIsNegativeLeavesTheConfiguredOne() throws Exception {
        FormatPolicy throwing = sizing(() -> {
            throw new IllegalStateException("broken smallObjectSize");
        });
        try (LogCapture log = LogCapture.start()) {
            GuardedFormatSession guard =
                    (GuardedFormatSession) GuardedFormatSession.open(throwing, new KeyOnly(BUCKET, "sized.rec"));
            assertThat(guard.smallObjectSize()).isEmpty();
            assertThat(guard.isOff()).isTrue();
            assertThat(log.warnings(FAILED + "s3://bucket/sized.rec")).isEqualTo(1);
        }
        assertThat(GuardedFormatSession.open(sizing(() -> OptionalLong.of(-1)), new KeyOnly(BUCKET, "sized.rec"))
                        .smallObjectSize())
                .isEmpty();
        assertThat(GuardedFormatSession.open(sizing(() -> OptionalLong.of(1000)), new KeyOnly(BUCKET, "sized.rec"))
                        .smallObjectSize())
                .hasValue(1000);
    }

    @Test
    void aStructureEndThatThrowsOrIsNotPastThePositionBoundsNothing() throws Exception {
        assertThat(GuardedFormatSession.open(bounding(position -> position + 100), new KeyOnly(BUCKET, "b.rec"))
                        .structureEnd(1_000))
                .isEqualTo(1_100);
        assertThat(GuardedFormatSession.open(bounding(position -> position), new KeyOnly(BUCKET, "b.rec"))
                        .structureEnd(1_000))
                .as("an end at the position")
                .isEqualTo(Long.MAX_VALUE);
        assertThat(GuardedFormatSession.open(bounding(position -> -1), new KeyOnly(BUCKET, "b.rec"))
                        .structureEnd(1_000))
                .as("an end before it")
                .isEqualTo(Long.MAX_VALUE);
        try (LogCapture log = LogCapture.start()) {
            GuardedFormatSession guard = (GuardedFormatSession) GuardedFormatSession.open(
                    bounding(position -> {
                        throw new IllegalStateException("broken structureEnd");
                    }),
                    new KeyOnly(BUCKET, "bounded.rec"));
            assertThat(guard.structureEnd(1_000)).isEqualTo(Long.MAX_VALUE);
            assertThat(guard.isOff()).isTrue();
            assertThat(guard.structureEnd(2_000)).isEqualTo(Long.MAX_VALUE);
            assertThat(log.warnings(FAILED + "s3://bucket/bounded.rec")).isEqualTo(1);
        }
    }

    /** A policy whose sessions answer {@code smallObjectSize} with {@code size}. */
    private static FormatPolicy sizing(Supplier<OptionalLong> size) {
        return opening(new FormatSession() {
            @Override
            public OptionalLong smallObjectSize() {
                return size.get();
            }
        });
    }

    /** A policy whose sessions answer {@code structureEnd} with {@code end}. */
    private static FormatPolicy bounding(LongUnaryOperator end) {
        return opening(new FormatSession() {
            @Override
            public long structureEnd(long position) {
                return end.applyAsLong(position);
            }
        });
    }

    /** A policy named {@code rec} that opens {@code session} on every stream. */
    private static FormatPolicy opening(FormatSession session) {
        return new FormatPolicy() {
            @Override
            public String name() {
                return "rec";
            }

            @Override
            public FormatSession open(FormatStream stream) {
                return session;
            }
        };
    }

    @Test
    void aPolicyThatOpensNoSessionGivesTheStreamNone() {
        FormatPolicy nothing = new FormatPolicy() {
            @Override
            public String name() {
                return "rec";
            }

            @Override
            public FormatSession open(FormatStream stream) {
                return null;
            }
        };
        assertThat(GuardedFormatSession.open(nothing, new KeyOnly(BUCKET, "none.rec")))
                .isSameAs(FormatSession.NONE);
    }

    /** A stream of which a guard needs only the bucket and key. */
    private record KeyOnly(String bucket, String key) implements FormatStream {
        @Override
        public String table() {
            throw new UnsupportedOperationException();
        }

        @Override
        public OptionalLong splitEnd() {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> T get(Setting<T> setting) {
            throw new UnsupportedOperationException();
        }

        @Override
        public OptionalLong knownLength() {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.Optional<String> etag() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<ByteBuffer> read(ByteRange range) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void prefetch(List<ByteRange> ranges) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Executor executor() {
            throw new UnsupportedOperationException();
        }
    }
}
