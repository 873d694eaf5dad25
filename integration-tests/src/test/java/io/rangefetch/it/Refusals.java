package io.rangefetch.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.HttpStatusException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads that S3 refuses, as a stream of another identity must see them: each kind of read fails with an
 * {@link IOException} whose cause chain holds the {@link HttpStatusException} of S3's answer, and the caller's buffers
 * stay as they were (all zeros), so no byte of the object reaches it. Every failure goes into a {@link Transcript}.
 */
final class Refusals {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private Refusals() {}

    /** The kinds of read a refused stream is tried with, each on a fresh stream (its first read). */
    enum ReadKind {
        READ,
        READ_FULLY,
        READ_TAIL,
        READ_VECTORED
    }

    /**
     * Tries {@code kind} of read on {@code stream}, which must fail with {@code status} in its cause chain and leave the
     * caller's buffers as they were (all zeros): no byte of the object reaches it.
     */
    static void assertRefused(
            SeekableS3InputStream stream, ReadKind kind, int objectLength, int status, Transcript transcript)
            throws InterruptedException {
        String what = kind + " of " + stream.location();
        switch (kind) {
            case READ -> {
                Throwable failure = catchThrowable(() -> {
                    int read = stream.read();
                    fail("read() returned %d", read);
                });
                assertStatus(failure, status, what, transcript);
            }
            case READ_FULLY -> {
                byte[] buffer = new byte[8192];
                Throwable failure = catchThrowable(() -> stream.readFully(objectLength / 2, buffer, 0, buffer.length));
                assertStatus(failure, status, what, transcript);
                assertThat(buffer).as("the buffer of %s", what).containsOnly(0);
            }
            case READ_TAIL -> {
                byte[] buffer = new byte[8192];
                Throwable failure = catchThrowable(() -> stream.readTail(buffer, 0, buffer.length));
                assertStatus(failure, status, what, transcript);
                assertThat(buffer).as("the buffer of %s", what).containsOnly(0);
            }
            case READ_VECTORED -> {
                List<FileRange> ranges = List.of(
                        FileRange.of(1_000, 5_000),
                        FileRange.of(objectLength / 2, 70_000),
                        FileRange.of(objectLength - 3_000, 3_000));
                List<ByteBuffer> buffers = Collections.synchronizedList(new ArrayList<>());
                Throwable thrown = catchThrowable(() -> stream.readVectored(ranges, length -> {
                    ByteBuffer buffer = ByteBuffer.allocate(length);
                    buffers.add(buffer);
                    return buffer;
                }));
                if (thrown != null) {
                    // a stream that knows no version yet fails the call itself, on its first GET
                    assertStatus(thrown, status, what, transcript);
                }
                for (FileRange range : ranges) {
                    if (thrown != null && !range.data().isDone()) {
                        continue; // the call failed before it handed the range out
                    }
                    Throwable failure = failureOf(range, what);
                    assertStatus(failure, status, what + ", range " + range, transcript);
                }
                for (ByteBuffer buffer : buffers) {
                    assertThat(buffer.array()).as("a buffer of %s", what).containsOnly(0);
                }
            }
        }
    }

    private static Throwable failureOf(FileRange range, String what) throws InterruptedException {
        try {
            ByteBuffer served = range.data().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            throw new AssertionError(what + ": range " + range + " was served " + served.remaining() + " bytes");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError(what + ": range " + range + " neither served nor failed in " + WAIT, e);
        }
    }

    /** Asserts {@code failure} is an IOException whose cause chain holds an HTTP error of {@code status}. */
    static void assertStatus(Throwable failure, int status, String what, Transcript transcript) {
        assertThat(failure).as("%s fails", what).isNotNull();
        transcript.exception(failure);
        assertThat(failure).as("%s fails with an IOException", what).isInstanceOf(IOException.class);
        assertThat(statusOf(failure))
                .as(() -> what + " fails with HTTP " + status + ":\n" + Transcript.stackTrace(failure))
                .isEqualTo(status);
    }

    private static int statusOf(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof HttpStatusException http) {
                return http.statusCode();
            }
        }
        return -1;
    }
}
