package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_PART_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.ReaderThreads;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The budget holds on every path, no GET is larger than the maximum request, and a fetch that an executor
 * refuses or drops gives back its budget and its slot instead of hanging its readers.
 */
@Timeout(value = 120, threadMode = ThreadMode.SEPARATE_THREAD)
class BudgetAndSchedulingTest {
    private static final String BUCKET = StreamFixture.BUCKET;
    private static final int MIB = StreamFixture.MIB;
    private static final int KIB = 1024;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private final InMemoryObjectClient client = fixture.client();

    @RegisterExtension
    final ReaderThreads threads = new ReaderThreads();

    private static S3Location at(String key) {
        return new S3Location(BUCKET, key);
    }

    private void assertNoGetLargerThan(long max) {
        for (Request get : client.gets()) {
            long size = get.range().startsWith("bytes=-")
                    ? Long.parseLong(get.range().substring(7))
                    : get.byteRange().length();
            assertThat(size).as("GET %s", get.range()).isLessThanOrEqualTo(max);
        }
    }

    @Test
    void aLargeFirstReadWithNoRoomInTheBudgetGoesIntoTheCallersBufferInCappedParts() throws Exception {
        byte[] data = fixture.put("large-first", 64 * MIB);
        StreamFactory factory = fixture.factory(
                StreamConfig.builder().set(CACHE_MAX_MEMORY, MIB).build());
        byte[] whole = new byte[data.length];
        try (SeekableS3InputStream stream = factory.open(at("large-first"))) {
            stream.readFully(0, whole, 0, whole.length);
        }
        assertThat(whole).isEqualTo(data);
        assertNoGetLargerThan(8L * MIB);
        assertThat(factory.peakCacheMemoryBytes()).isLessThanOrEqualTo(MIB);
    }

    @Test
    void aStreamingReadAndATailReadWithNoRoomStayWithinTheCap() throws Exception {
        byte[] data = fixture.put("streamed", 40 * MIB);
        StreamConfig config = StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, MIB)
                .set(MIN_REQUEST_SIZE, 64 * KIB)
                .set(MAX_REQUEST_SIZE, 2L * MIB)
                .set(SMALL_OBJECT_SIZE, 4L * MIB)
                .set(SMALL_OBJECT_PART_SIZE, 512L * KIB)
                .set(PREFETCH_INITIAL_SIZE, 2L * MIB)
                .set(PREFETCH_MAX_SIZE, 2L * MIB)
                .build();
        StreamFactory factory = fixture.factory(config);
        try (SeekableS3InputStream stream = factory.open(at("streamed"))) {
            byte[] tail = new byte[5 * MIB];
            assertThat(stream.readTail(tail, 0, tail.length)).isEqualTo(tail.length);
            assertThat(tail).isEqualTo(Arrays.copyOfRange(data, data.length - tail.length, data.length));
            byte[] chunk = new byte[7 * MIB];
            int read = stream.read(chunk, 0, chunk.length);
            assertThat(Arrays.copyOf(chunk, read)).isEqualTo(Arrays.copyOf(data, read));
        }
        assertNoGetLargerThan(2L * MIB);
        assertThat(factory.peakCacheMemoryBytes()).isLessThanOrEqualTo(MIB);
    }

    @Test
    void aSmallObjectSizeAboveTheMaximumRequestNeverMakesAFirstGetAboveIt() throws Exception {
        byte[] data = fixture.put("small-but-large", 3 * MIB);
        StreamConfig config = StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 64L * MIB)
                .set(MAX_REQUEST_SIZE, MIB)
                .set(SMALL_OBJECT_SIZE, 4L * MIB)
                .set(SMALL_OBJECT_PART_SIZE, 256L * KIB)
                .build();
        StreamFactory factory = fixture.factory(config);
        try (SeekableS3InputStream stream = factory.open(at("small-but-large"))) {
            byte[] all = new byte[data.length];
            stream.readFully(0, all, 0, all.length);
            assertThat(all).isEqualTo(data);
        }
        assertNoGetLargerThan(MIB);
    }

    /** An executor that fails one chosen hand-off with something other than RejectedExecutionException. */
    private static final class ThrowingOnce implements Executor {
        private final ExecutorService threads = Executors.newCachedThreadPool();
        private final AtomicInteger calls = new AtomicInteger();
        private final int failing;

        ThrowingOnce(int failing) {
            this.failing = failing;
        }

        @Override
        public void execute(Runnable task) {
            if (calls.incrementAndGet() == failing) {
                throw new IllegalStateException("executor broke");
            }
            threads.execute(task);
        }
    }

    @Test
    void anExecutorThatThrowsGivesTheSlotAndTheBudgetBack() throws Exception {
        byte[] data = fixture.put("throwing", 32 * MIB);
        ThrowingOnce executor = new ThrowingOnce(1);
        StreamFactory factory = StreamFactory.builder(client)
                .executor(executor)
                .config(StreamConfig.builder()
                        .set(CACHE_MAX_MEMORY, 64L * MIB)
                        .set(FETCH_MAX_CONCURRENCY, 1)
                        .build())
                .build();
        try (SeekableS3InputStream stream = factory.open(
                at("throwing"),
                OpenOptions.builder()
                        .length(data.length)
                        .etag(client.etag(BUCKET, "throwing"))
                        .build())) {
            byte[] bytes = new byte[KIB];
            assertThatThrownBy(() -> stream.readFully(20L * MIB, bytes, 0, KIB))
                    .isExactlyInstanceOf(IOException.class)
                    .hasMessageContaining("s3://bucket/throwing")
                    .hasMessageContaining("refused");
            // the one slot came back: the next read is served
            stream.readFully(20L * MIB, bytes, 0, KIB);
            assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, 20 * MIB, 20 * MIB + KIB));
        } finally {
            factory.close();
            executor.threads.shutdownNow();
        }
        assertThat(factory.cacheMemoryBytes())
                .as("nothing claimed is left reserved")
                .isZero();
    }

    /** An executor that silently drops one chosen task, as a pool with a discard policy does. */
    private static final class DroppingOnce implements Executor {
        private final ExecutorService threads = Executors.newCachedThreadPool();
        private final AtomicInteger calls = new AtomicInteger();

        @Override
        public void execute(Runnable task) {
            if (calls.incrementAndGet() != 1) {
                threads.execute(task);
            }
        }
    }

    @Test
    void aFetchAnExecutorDropsEndsItsReadersAndGivesItsSlotBack() throws Exception {
        byte[] data = fixture.put("dropping", 32 * MIB);
        DroppingOnce executor = new DroppingOnce();
        StreamFactory factory = StreamFactory.builder(client)
                .executor(executor)
                .config(StreamConfig.builder()
                        .set(CACHE_MAX_MEMORY, 64L * MIB)
                        .set(FETCH_MAX_CONCURRENCY, 1)
                        .build())
                .build();
        try (SeekableS3InputStream stream = factory.open(
                at("dropping"),
                OpenOptions.builder()
                        .length(data.length)
                        .etag(client.etag(BUCKET, "dropping"))
                        .build())) {
            byte[] bytes = new byte[KIB];
            Future<?> dropped = threads.submit(() -> {
                stream.readFully(20L * MIB, bytes, 0, KIB);
                return null;
            });
            // the dropped task is found once the collector reclaims it: nothing else can tell
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!dropped.isDone() && System.nanoTime() < deadline) {
                System.gc();
                try {
                    dropped.get(200, TimeUnit.MILLISECONDS);
                } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                    // not yet, or ended with the failure checked below
                }
            }
            assertThatThrownBy(dropped::get)
                    .cause()
                    .isExactlyInstanceOf(IOException.class)
                    .hasMessageContaining("dropped");
            stream.readFully(20L * MIB, bytes, 0, KIB);
            assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, 20 * MIB, 20 * MIB + KIB));
        } finally {
            factory.close();
            executor.threads.shutdownNow();
        }
        assertThat(factory.cacheMemoryBytes()).isZero();
    }

    @Test
    void aVectoredRangesCallbackThatReadsAgainDoesNotStarveTheOnlyFetchSlot() throws Exception {
        byte[] data = fixture.put("callback", 32 * MIB);
        StreamFactory factory = fixture.factory(StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 64L * MIB)
                .set(FETCH_MAX_CONCURRENCY, 1)
                .build());
        try (SeekableS3InputStream stream = factory.open(
                at("callback"),
                OpenOptions.builder()
                        .length(data.length)
                        .etag(client.etag(BUCKET, "callback"))
                        .build())) {
            // held until the callback is attached, so that it runs where the range completes, not on this thread
            BodyHold held = client.holdBodies(
                    request -> request.isGet() && request.range().startsWith("bytes=" + MIB + "-"));
            FileRange range = FileRange.of(MIB, KIB);
            stream.readVectored(List.of(range), ByteBuffer::allocate);
            assertThat(held.awaitHeld(1)).isTrue();
            CompletableFuture<byte[]> nested = range.data().thenApply(first -> {
                byte[] more = new byte[KIB];
                try {
                    stream.readFully(20L * MIB, more, 0, KIB); // needs the one slot
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
                return more;
            });
            held.release();
            assertThat(nested.get(30, TimeUnit.SECONDS)).isEqualTo(Arrays.copyOfRange(data, 20 * MIB, 20 * MIB + KIB));
        }
    }

    @Test
    void closingTheFactoryLeavesTheCallersClientOpen() {
        AtomicInteger closes = new AtomicInteger();
        io.rangefetch.client.ObjectClient owned = new io.rangefetch.client.ObjectClient() {
            @Override
            public io.rangefetch.client.ObjectClient.ObjectContent get(
                    io.rangefetch.client.ObjectClient.RangeGetRequest request) throws IOException {
                return client.get(request);
            }

            @Override
            public io.rangefetch.client.ObjectClient.ObjectMetadata head(
                    io.rangefetch.client.ObjectClient.ObjectAddress object) throws IOException {
                return client.head(object);
            }

            @Override
            public void close() {
                closes.incrementAndGet();
            }
        };
        StreamFactory.create(
                        owned, StreamConfig.builder().set(CACHE_MAX_MEMORY, MIB).build())
                .close();
        assertThat(closes).hasValue(0);
    }
}
