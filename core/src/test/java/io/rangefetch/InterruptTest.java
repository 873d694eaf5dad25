package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.S3Location;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.ReaderThreads;
import io.rangefetch.testing.RecordingPolicy;
import io.rangefetch.testing.StreamFixture;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A reader blocked in any wait answers {@link Thread#interrupt} with {@link InterruptedIOException}, keeps its
 * interrupt flag, and a fetch nobody else waits for is stopped. Held bodies decide where the reader is blocked.
 */
@Timeout(value = 60, threadMode = ThreadMode.SEPARATE_THREAD)
class InterruptTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final int KIB = 1024;
    private static final int SIZE = 20 * MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    @RegisterExtension
    final ReaderThreads threads = new ReaderThreads();

    private static S3Location at(String key) {
        return new S3Location(BUCKET, key);
    }

    /** A blocking call made on a thread of its own, which can be interrupted. */
    private final class Blocked {
        private final AtomicReference<Thread> thread = new AtomicReference<>();
        private final Future<Boolean> interruptedFlag;

        Blocked(ThrowingCall call) {
            interruptedFlag = threads.submit(() -> {
                thread.set(Thread.currentThread());
                try {
                    call.run();
                    throw new AssertionError("The call returned instead of blocking");
                } catch (InterruptedIOException e) {
                    return Thread.currentThread().isInterrupted();
                }
            });
        }

        /** Interrupts the call once its thread waits; true when it ended with InterruptedIOException, flag kept. */
        boolean interruptWhenWaiting() throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (thread.get() == null
                    || thread.get().getState() == Thread.State.RUNNABLE
                    || thread.get().getState() == Thread.State.NEW) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("The call never started waiting");
                }
                Thread.onSpinWait();
            }
            thread.get().interrupt();
            try {
                return interruptedFlag.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("The call ended with " + e.getCause(), e.getCause());
            }
        }
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    private OpenOptions known(String key) {
        return OpenOptions.builder().length(SIZE).etag(client.etag(BUCKET, key)).build();
    }

    @Test
    void aReaderWaitingForItsBlockIsInterruptedAndItsGetNobodyElseWantsIsAborted() throws Exception {
        fixture.put("block", SIZE);
        BodyHold held = client.holdBodies(Request::isGet);
        try (SeekableS3InputStream stream = fixture.factory().open(at("block"), known("block"))) {
            Blocked reader = new Blocked(() -> stream.readFully(5L * MIB, new byte[KIB], 0, KIB));
            assertThat(held.awaitHeld(1)).isTrue();
            assertThat(reader.interruptWhenWaiting()).isTrue();
            assertThat(held.awaitClosedWhileHeld(1))
                    .as("the abandoned GET is cut")
                    .isTrue();
        } finally {
            held.release();
        }
    }

    @Test
    void aReaderWaitingForTheFirstRequestIsInterruptedAndTheRequestIsStopped() throws Exception {
        fixture.put("first", SIZE);
        BodyHold held = client.holdBodies(Request::isGet);
        try (SeekableS3InputStream stream = fixture.factory().open(at("first"))) {
            Blocked reader = new Blocked(() -> stream.readFully(5L * MIB, new byte[KIB], 0, KIB));
            assertThat(held.awaitHeld(1)).isTrue();
            assertThat(reader.interruptWhenWaiting()).isTrue();
            assertThat(held.awaitClosedWhileHeld(1)).isTrue();
        } finally {
            held.release();
        }
    }

    @Test
    void aReaderWritingStraightIntoItsBufferIsInterruptedOnlyOnceNothingWritesThereAnyMore() throws Exception {
        fixture.put("direct", SIZE);
        BodyHold held = client.holdBodies(Request::isGet);
        StreamFactory factory = fixture.factory(
                StreamConfig.builder().set(CACHE_MAX_MEMORY, 64 * KIB).build());
        try (SeekableS3InputStream stream = factory.open(at("direct"), known("direct"))) {
            Blocked reader = new Blocked(() -> stream.readFully(0, new byte[4 * MIB], 0, 4 * MIB));
            assertThat(held.awaitHeld(1)).isTrue();
            assertThat(reader.interruptWhenWaiting()).isTrue();
            // the read returned only once its GET can no longer write into the buffer: its body was being read and
            // is cut, or its answer had not reached the fetch yet and is cut on arrival, never read
            assertThat(held.awaitClosedWhileHeld(1)).isTrue();
        } finally {
            held.release();
        }
    }

    @Test
    void aReaderWaitingForTheOpenFetchIsInterrupted() throws Exception {
        fixture.put("open.rec", SIZE);
        BodyHold held = client.holdBodies(Request::isGet);
        RecordingPolicy policy = RecordingPolicy.fetching("rec", 64 * KIB);
        StreamFactory factory = fixture.factory(RecordingPolicy.recConfig(), List.of(policy));
        try (SeekableS3InputStream stream = factory.open(at("open.rec"))) {
            assertThat(held.awaitHeld(1)).isTrue(); // the open fetch
            Blocked reader = new Blocked(() -> stream.read(new byte[KIB], 0, KIB));
            assertThat(reader.interruptWhenWaiting()).isTrue();
        } finally {
            held.release();
        }
    }

    @Test
    void aReaderWaitingForTheStreamingLockIsInterruptedAndTheContentionNeverBlocksGetPos() throws Exception {
        fixture.put("lock", SIZE);
        BodyHold held = client.holdBodies(Request::isGet);
        try (SeekableS3InputStream stream = fixture.factory().open(at("lock"), known("lock"))) {
            stream.seek(MIB);
            Future<Integer> first = threads.submit(() -> stream.read(new byte[KIB], 0, KIB));
            assertThat(held.awaitHeld(1)).isTrue(); // the first streaming read holds the lock, waiting on the network
            assertThat(stream.getPos()).isEqualTo(MIB);
            Blocked second = new Blocked(() -> stream.read(new byte[KIB], 0, KIB));
            assertThat(second.interruptWhenWaiting()).isTrue();
            held.release();
            assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(KIB);
            assertThat(stream.getPos()).isEqualTo(MIB + KIB);
        } finally {
            held.release();
        }
    }
}
