package io.rangefetch.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrowsExactly;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.testing.ContractStream.Range;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every stream Rangefetch hands out does, written once: the core stream, parquet-java's, Iceberg's and both of
 * Hadoop's. Each module's tests subclass it for their stream and give a {@link StreamSource}: where objects are
 * stored and how a stream of one is opened, as that stream's users open it (the in-memory client for a stream that
 * can be built on it, a local S3 server for one that needs an SDK client). The cases are about behaviour only:
 * which bytes come back, where the position is, and what a caller's mistake or a closed stream throws. They count
 * no requests and measure no time; a vectored read's futures are waited for, bounded, never slept for.
 *
 * <p><b>Where streams differ.</b> The exception each refusal throws is asked of the subclass ({@link
 * #negativeSeekFailure()} and the like) and asserted exactly, so a stream that changes what it throws fails here
 * rather than in a caller's catch block. The defaults are the core stream's documented ones, which Hadoop's stream
 * contract also demands ({@link EOFException} for a seek or positioned read outside the object). Every refusal's
 * message must name the object, as {@code bucket/key}: Rangefetch promises that its I/O failures and its refusals
 * of a caller's mistake say where (a buffer's bounds excepted: those are the JDK's {@link IndexOutOfBoundsException}).
 * A stream without positioned reads (parquet-java's) says so with {@link #hasPositionedReads()}, and the cases that
 * need one are skipped for it, visibly, rather than passed.
 *
 * <p><b>Objects.</b> Each case stores its own objects under keys that start with the test class's simple name, so
 * subclasses sharing one server and bucket never read each other's. The largest is 8 MiB + 1 (one byte past the
 * default small-object size and largest request); a class stores about 10 MB in all.
 */
public abstract class SeekableStreamContract {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    /** A bound on waiting for a vectored range's bytes: a stream that never completes one fails, not hangs. */
    private static final long VECTORED_WAIT_SECONDS = 30;

    /** Where a subclass's objects live and how its stream opens one. */
    public interface StreamSource {
        /** The bucket the objects are stored in: a refusal's message names {@code bucket/key}. */
        String bucket();

        /** Stores {@code data} as the object {@code key}, replacing any object there. */
        void put(String key, byte[] data) throws IOException;

        /** Opens the subclass's stream on the object {@code key}, as that stream's users open it. */
        ContractStream open(String key) throws IOException;
    }

    /** The subclass's objects and streams; asked for whenever a case stores or opens one, after the set-up. */
    protected abstract StreamSource source();

    /** Whether the stream has a positioned {@code readFully}; the cases that need one are skipped where not. */
    protected boolean hasPositionedReads() {
        return true;
    }

    /** What {@code seek(-1)} throws. */
    protected Class<? extends Exception> negativeSeekFailure() {
        return EOFException.class;
    }

    /** What a seek past the end throws, at the seek or at the read after it (a stream that knows no length yet). */
    protected Class<? extends Exception> seekPastTheEndFailure() {
        return EOFException.class;
    }

    /** What a positioned {@code readFully} of bytes past the end throws. */
    protected Class<? extends Exception> positionedReadPastTheEndFailure() {
        return EOFException.class;
    }

    /** What a vectored read with a range past the end throws. */
    protected Class<? extends Exception> vectoredRangePastTheEndFailure() {
        return EOFException.class;
    }

    /** What a vectored read of overlapping ranges throws. */
    protected Class<? extends Exception> overlappingRangesFailure() {
        return IllegalArgumentException.class;
    }

    /** What a read, a seek or a vectored read of a closed stream throws. */
    protected Class<? extends Exception> closedStreamFailure() {
        return IOException.class;
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 64 * KIB - 1, 64 * KIB + 1, 8 * MIB + 1})
    public void aSequentialReadReturnsTheObjectByteForByte(int size) throws IOException {
        String name = "sequential-" + size;
        byte[] data = put(name, size);
        try (ContractStream stream = open(name)) {
            for (int i = 0; i < size; i++) {
                int read = stream.read();
                if (read != (data[i] & 0xff)) {
                    fail("read() of byte " + i + " of " + size + " returned " + read + ", not " + (data[i] & 0xff));
                }
            }
            assertEquals(-1, stream.read(), "read() at the end");
            assertEquals(size, stream.getPos(), "the position at the end");
            OptionalLong length = stream.length();
            if (length.isPresent()) {
                assertEquals(size, length.getAsLong(), "the length the stream tells");
            }
        }
        try (ContractStream stream = open(name)) {
            // an odd buffer size, so that reads straddle every boundary the stream has
            byte[] buffer = new byte[4099];
            ByteArrayOutputStream out = new ByteArrayOutputStream(size);
            int read;
            while ((read = stream.read(buffer, 0, buffer.length)) >= 0) {
                assertTrue(read > 0, "a read into a non-empty buffer returned 0 at " + out.size() + " of " + size);
                out.write(buffer, 0, read);
                assertEquals(out.size(), stream.getPos(), "the position after reading " + out.size() + " bytes");
            }
            assertArrayEquals(data, out.toByteArray(), "the object read in 4099-byte reads");
        }
    }

    @Test
    public void seeksForwardAndBackwardReadOnFromTheNewPosition() throws IOException {
        int size = 256 * KIB;
        byte[] data = put("seeks", size);
        long[] targets = {1000, 200_000, 10, 10, 0, size - 1, 128 * KIB, 99_999};
        try (ContractStream stream = open("seeks")) {
            for (long target : targets) {
                stream.seek(target);
                assertEquals(target, stream.getPos(), "the position after seek(" + target + ")");
                assertEquals(data[(int) target] & 0xff, stream.read(), "the byte at " + target);
                byte[] next = readUpTo(stream, 777);
                int expected = (int) Math.min(777, size - target - 1);
                assertArrayEquals(slice(data, target + 1, expected), next, "the bytes after " + target);
                assertEquals(target + 1 + expected, stream.getPos(), "the position after reading at " + target);
            }
        }
    }

    @Test
    public void getPosCountsEveryByteReadAndFollowsEverySeek() throws IOException {
        int size = 100 * KIB;
        byte[] data = put("positions", size);
        try (ContractStream stream = open("positions")) {
            assertEquals(0, stream.getPos(), "a new stream's position");
            assertEquals(data[0] & 0xff, stream.read());
            assertEquals(1, stream.getPos(), "after read()");
            byte[] buffer = new byte[64];
            int read = stream.read(buffer, 0, 10);
            assertTrue(read >= 1 && read <= 10, "read(buffer, 0, 10) returned " + read);
            assertArrayEquals(slice(data, 1, read), Arrays.copyOf(buffer, read));
            assertEquals(1 + read, stream.getPos(), "after read(buffer, 0, 10)");
            stream.seek(50_000);
            assertEquals(50_000, stream.getPos(), "after seek(50000)");
            read = stream.read(buffer, 7, 20);
            assertTrue(read >= 1 && read <= 20, "read(buffer, 7, 20) returned " + read);
            assertArrayEquals(slice(data, 50_000, read), Arrays.copyOfRange(buffer, 7, 7 + read));
            assertEquals(50_000 + read, stream.getPos(), "after read(buffer, 7, 20)");
            stream.seek(3);
            assertEquals(0, stream.read(buffer, 0, 0), "a read of no bytes");
            assertEquals(3, stream.getPos(), "after a read of no bytes");
            stream.seek(size);
            assertEquals(size, stream.getPos(), "after seek(length)");
        }
    }

    @Test
    public void aReadAtTheEndReturnsMinusOneEveryTime() throws IOException {
        int size = 1000;
        byte[] data = put("end", size);
        try (ContractStream stream = open("end")) {
            assertArrayEquals(data, readUpTo(stream, size + 1), "the whole object");
            byte[] buffer = new byte[10];
            assertEquals(-1, stream.read(), "read() at the end");
            assertEquals(-1, stream.read(buffer, 0, buffer.length), "read(buffer) at the end");
            assertEquals(-1, stream.read(), "read() at the end, again");
            assertEquals(0, stream.read(buffer, 0, 0), "a read of no bytes at the end");
            assertEquals(size, stream.getPos(), "the position at the end");
            stream.seek(size);
            assertEquals(-1, stream.read(), "read() after seek(length)");
            stream.seek(size - 1);
            assertEquals(data[size - 1] & 0xff, stream.read(), "the last byte, after seeking back to it");
            assertEquals(-1, stream.read(), "read() after the last byte");
        }
    }

    @Test
    public void aReadPastTheBuffersEndIsRefusedAndMovesNothing() throws IOException {
        byte[] data = put("buffer-bounds", 1000);
        try (ContractStream stream = open("buffer-bounds")) {
            stream.seek(7);
            byte[] buffer = new byte[10];
            assertThrowsExactly(
                    IndexOutOfBoundsException.class, () -> stream.read(buffer, 5, 6), "read(byte[10], 5, 6)");
            assertThrowsExactly(
                    IndexOutOfBoundsException.class, () -> stream.read(buffer, -1, 2), "read(byte[10], -1, 2)");
            assertEquals(7, stream.getPos(), "the position after refused reads");
            assertArrayEquals(new byte[10], buffer, "the buffer after refused reads");
            assertEquals(data[7] & 0xff, stream.read(), "a read after refused reads");
        }
    }

    @Test
    public void positionedReadsReturnTheirBytesAndLeaveThePositionAlone() throws IOException {
        assumeTrue(hasPositionedReads(), "this stream has no positioned read");
        int size = 300 * KIB;
        byte[] data = put("positioned", size);
        long[][] reads = {{0, 100}, {4999, 2}, {150_000, 64 * KIB}, {size - 10, 10}, {size - 1, 1}, {123_456, 1}};
        try (ContractStream stream = open("positioned")) {
            assertArrayEquals(slice(data, 0, 5000), readUpTo(stream, 5000));
            for (long[] read : reads) {
                long position = read[0];
                int length = (int) read[1];
                // three bytes either side that the read must leave alone
                byte[] buffer = new byte[length + 6];
                stream.readFully(position, buffer, 3, length);
                byte[] expected = new byte[length + 6];
                System.arraycopy(data, (int) position, expected, 3, length);
                assertArrayEquals(expected, buffer, "readFully(" + position + ", buffer, 3, " + length + ")");
                assertEquals(5000, stream.getPos(), "the position after readFully at " + position);
            }
            assertEquals(data[5000] & 0xff, stream.read(), "the streaming read goes on where it was");
        }
    }

    @Test
    public void aPositionedReadPastTheEndFailsAndLeavesTheStreamUsable() throws IOException {
        assumeTrue(hasPositionedReads(), "this stream has no positioned read");
        int size = 1000;
        String object = object("positioned-past-end");
        byte[] data = put("positioned-past-end", size);
        long[][] reads = {{size - 10, 11}, {size, 1}, {size + 100, 1}};
        try (ContractStream stream = open("positioned-past-end")) {
            stream.seek(10);
            for (long[] read : reads) {
                long position = read[0];
                int length = (int) read[1];
                assertFails(
                        positionedReadPastTheEndFailure(),
                        object,
                        () -> stream.readFully(position, new byte[length], 0, length),
                        "readFully of " + length + " bytes at " + position + " of " + size);
                assertEquals(10, stream.getPos(), "the position after a refused readFully at " + position);
            }
            byte[] last = new byte[10];
            stream.readFully(size - 10, last, 0, 10);
            assertArrayEquals(slice(data, size - 10, 10), last, "the last 10 bytes, after the refusals");
            assertEquals(data[10] & 0xff, stream.read(), "a streaming read after the refusals");
        }
    }

    @Test
    public void aNegativeSeekFailsAndLeavesTheStreamWhereItWas() throws IOException {
        String object = object("negative-seek");
        byte[] data = put("negative-seek", 1000);
        try (ContractStream stream = open("negative-seek")) {
            assertArrayEquals(slice(data, 0, 10), readUpTo(stream, 10));
            assertFails(negativeSeekFailure(), object, () -> stream.seek(-1), "seek(-1)");
            assertEquals(10, stream.getPos(), "the position after a refused seek");
            assertEquals(data[10] & 0xff, stream.read(), "a read after a refused seek");
            stream.seek(500);
            assertEquals(data[500] & 0xff, stream.read(), "a read after a seek that follows a refused one");
        }
    }

    @Test
    public void aSeekPastTheEndFailsThereOrAtTheNextRead() throws IOException {
        int size = 1000;
        String object = object("seek-past-end");
        byte[] data = put("seek-past-end", size);
        try (ContractStream stream = open("seek-past-end")) {
            assertFails(
                    seekPastTheEndFailure(),
                    object,
                    () -> {
                        stream.seek(size + 1);
                        stream.read();
                    },
                    "seek(length + 1), then read()");
            stream.seek(5);
            assertEquals(5, stream.getPos(), "the position after seeking back");
            assertEquals(data[5] & 0xff, stream.read(), "a read after seeking back");
        }
    }

    @Test
    public void aVectoredReadReturnsExactlyEachRangesBytes() throws Exception {
        int size = MIB + 3;
        byte[] data = put("vectored", size);
        List<Range> ranges = List.of(
                new Range(700_000, 5000),
                new Range(0, 1),
                new Range(300, 1000),
                // ends where the one above starts: adjacent ranges do not overlap
                new Range(100, 200),
                new Range(size - 17, 17),
                new Range(200_000, 300_000));
        try (ContractStream stream = open("vectored")) {
            stream.seek(123);
            List<CompletableFuture<ByteBuffer>> buffers = stream.readVectored(ranges);
            assertEquals(ranges.size(), buffers.size(), "one future per range");
            for (int i = 0; i < ranges.size(); i++) {
                assertHolds(data, ranges.get(i), buffers.get(i));
            }
            assertEquals(123, stream.getPos(), "the position after a vectored read");
            assertEquals(data[123] & 0xff, stream.read(), "a streaming read after a vectored read");
        }
    }

    @Test
    public void anEmptyVectoredRangeGetsAnEmptyBuffer() throws Exception {
        int size = 10 * KIB;
        byte[] data = put("vectored-empty-range", size);
        List<Range> ranges = List.of(new Range(5000, 0), new Range(100, 10));
        try (ContractStream stream = open("vectored-empty-range")) {
            List<CompletableFuture<ByteBuffer>> buffers = stream.readVectored(ranges);
            assertHolds(data, ranges.get(0), buffers.get(0));
            assertHolds(data, ranges.get(1), buffers.get(1));
        }
    }

    @Test
    public void overlappingVectoredRangesAreRefusedAndTheStreamReadsOn() throws Exception {
        int size = 10_000;
        String object = object("vectored-overlap");
        byte[] data = put("vectored-overlap", size);
        try (ContractStream stream = open("vectored-overlap")) {
            Exception failure = assertFails(
                    overlappingRangesFailure(),
                    object,
                    () -> stream.readVectored(List.of(new Range(1000, 600), new Range(1500, 100))),
                    "a vectored read of 600 bytes at 1000 and 100 bytes at 1500");
            assertTrue(
                    failure.getMessage().contains("1500"),
                    "the refusal should name the overlapping range (at 1500): " + failure.getMessage());
            Range range = new Range(1000, 600);
            assertHolds(data, range, stream.readVectored(List.of(range)).get(0));
        }
    }

    @Test
    public void aVectoredRangePastTheEndIsRefusedAndTheStreamReadsOn() throws Exception {
        int size = 10_000;
        String object = object("vectored-past-end");
        byte[] data = put("vectored-past-end", size);
        try (ContractStream stream = open("vectored-past-end")) {
            assertFails(
                    vectoredRangePastTheEndFailure(),
                    object,
                    () -> stream.readVectored(List.of(new Range(0, 10), new Range(size - 10, 11))),
                    "a vectored read with 11 bytes at " + (size - 10) + " of " + size);
            Range last = new Range(size - 10, 10);
            assertHolds(data, last, stream.readVectored(List.of(last)).get(0));
        }
    }

    @Test
    public void aClosedStreamRefusesReadsAndSeeks() throws IOException {
        String object = object("closed");
        byte[] data = put("closed", 1000);
        ContractStream stream = open("closed");
        assertArrayEquals(slice(data, 0, 10), readUpTo(stream, 10));
        stream.close();
        Class<? extends Exception> expected = closedStreamFailure();
        assertFails(expected, object, stream::read, "read() after close");
        assertFails(expected, object, () -> stream.read(new byte[10], 0, 10), "read(buffer) after close");
        assertFails(expected, object, () -> stream.seek(0), "seek(0) after close");
        if (hasPositionedReads()) {
            assertFails(expected, object, () -> stream.readFully(0, new byte[10], 0, 10), "readFully after close");
        }
        assertFails(expected, object, () -> stream.readVectored(List.of(new Range(0, 10))), "readVectored after close");
    }

    @Test
    public void closingTwiceIsHarmless() throws IOException {
        byte[] data = put("close-twice", 1000);
        ContractStream read = open("close-twice");
        assertEquals(data[0] & 0xff, read.read());
        read.close();
        read.close();
        ContractStream unread = open("close-twice");
        unread.close();
        unread.close();
    }

    /** The key of the case's object {@code name}: the test class's own, so that subclasses never share one. */
    private String key(String name) {
        return getClass().getSimpleName() + "/" + name;
    }

    /** How a refusal's message names the case's object {@code name}: {@code bucket/key}, whatever the scheme. */
    private String object(String name) {
        return source().bucket() + "/" + key(name);
    }

    private byte[] put(String name, int size) throws IOException {
        byte[] data = TestData.bytes(size, name.hashCode());
        source().put(key(name), data);
        return data;
    }

    private ContractStream open(String name) throws IOException {
        ContractStream stream = source().open(key(name));
        assertNotNull(stream, "the source opened null");
        return stream;
    }

    /** Streaming reads until {@code length} bytes or the end; what they returned. */
    private static byte[] readUpTo(ContractStream stream, int length) throws IOException {
        byte[] buffer = new byte[length];
        int filled = 0;
        while (filled < length) {
            int read = stream.read(buffer, filled, length - filled);
            if (read < 0) {
                break;
            }
            assertTrue(read > 0, "a read into a non-empty buffer returned 0");
            filled += read;
        }
        return Arrays.copyOf(buffer, filled);
    }

    private static byte[] slice(byte[] data, long offset, int length) {
        return Arrays.copyOfRange(data, (int) offset, (int) offset + length);
    }

    /** {@code range}'s future completes, in bounded time, with a buffer holding exactly the range's bytes. */
    private static void assertHolds(byte[] data, Range range, CompletableFuture<ByteBuffer> future) throws Exception {
        assertNotNull(future, () -> range + ": no future");
        ByteBuffer buffer = future.get(VECTORED_WAIT_SECONDS, TimeUnit.SECONDS).duplicate();
        assertEquals(range.length(), buffer.remaining(), () -> range + ": the bytes between position and limit");
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        assertArrayEquals(slice(data, range.offset(), range.length()), bytes, () -> range + ": the bytes");
    }

    /** {@code call} throws exactly {@code type}, with a message that names {@code object}; the exception. */
    private static Exception assertFails(Class<? extends Exception> type, String object, Executable call, String what) {
        Exception failure = assertThrowsExactly(type, call, what);
        String message = failure.getMessage();
        assertTrue(
                message != null && message.contains(object),
                () -> what + ": the " + type.getSimpleName() + "'s message should name " + object + ": " + message);
        return failure;
    }
}
