package io.rangefetch.internal.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.cache.ObjectId;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.plan.CoalescerSettings;
import io.rangefetch.internal.plan.FetchPlan;
import io.rangefetch.internal.plan.PlannerSettings;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.ManualTime;
import io.rangefetch.testing.TestData;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a read holds is given back on every way out, including one that never submitted its GETs. */
class ObjectReadTest {
    private static final int KIB = 1024;

    private final InMemoryObjectClient client = new InMemoryObjectClient();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final ManualTime time = new ManualTime();
    private final BlockCache cache = new BlockCache(1024 * KIB);
    private final FetchScheduler scheduler = new FetchScheduler(2, threads, threads, time.timeSource());
    private final ReadEngine engine = new ReadEngine(
            client,
            cache,
            new MetadataCache(Duration.ofMinutes(1), 100, Ticker.systemTicker()),
            scheduler,
            new ReadPlanner(new PlannerSettings(4 * KIB, 64 * KIB, 0, 2, 16 * KIB, 64 * KIB, 2, 16 * KIB, 16 * KIB)),
            new RangeCoalescer(new CoalescerSettings(8 * KIB, 64 * KIB, 64 * KIB, 0.25)),
            RetrySettings.none(),
            time.timeSource());
    private final ObjectAddress address = new ObjectAddress("bucket", "key");
    private final AccessIdentity reader = AccessIdentity.unique();
    private final StatisticsCounter statistics = StatisticsCounter.root();

    @AfterEach
    void stop() {
        scheduler.close();
    }

    private ObjectRead acquire(PinnedVersion version) {
        return new StepsUnused(version);
    }

    /** A read whose claims and takes a test makes by hand: the template's steps are never called. */
    private final class StepsUnused extends ObjectRead {
        StepsUnused(PinnedVersion version) {
            super(
                    engine,
                    address,
                    version,
                    new ObjectId(address.bucket(), address.key(), version.etag(), reader),
                    statistics,
                    new PrefetchTracker());
        }

        @Override
        FetchPlan plan(List<Block> known) {
            throw new AssertionError("not planned by this test");
        }

        @Override
        FetchCause causeOf(boolean prefetch) {
            return prefetch ? FetchCause.SEQUENTIAL_PREFETCH : FetchCause.DEMAND;
        }

        @Override
        void fromBlock(int reader, Block block, boolean cached) {
            throw new AssertionError("not planned by this test");
        }

        @Override
        void direct(int reader, BlockGet fetch, ByteRange bytes) {
            throw new AssertionError("not planned by this test");
        }
    }

    @Test
    void claimsAReadNeverSubmittedAreFailedAndTheirBytesGivenBackWhileAJoinedReaderLearnsWhy() throws Exception {
        String etag = client.put("bucket", "key", TestData.bytes(256 * KIB, 1));
        PinnedVersion version = new PinnedVersion(etag, 256 * KIB, 1);
        ObjectRead joiner = acquire(version);
        Block shared;
        try (ObjectRead planning = acquire(version)) {
            ReentrantLock lock = cache.lockFor(planning.id());
            lock.lock();
            try {
                shared = planning.claim(new ByteRange(0, 32 * KIB), false);
                planning.claim(new ByteRange(32 * KIB, 64 * KIB), true);
                assertThat(joiner.take(shared)).isTrue(); // another read joins the in-flight block
            } finally {
                lock.unlock();
            }
            assertThat(cache.heldBytes()).isEqualTo(64 * KIB);
            // the read fails before it submits anything: the try closes it
        }
        assertThatThrownBy(() -> joiner.await(shared, false)).isInstanceOf(BlockLostException.class);
        joiner.close();
        assertThat(cache.heldBytes()).as("every claimed byte given back").isZero();
        assertThat(cache.blocksOverlapping(new ObjectId("bucket", "key", etag, reader), 0, 256 * KIB))
                .isEmpty();
    }

    @Test
    void aReadThatEndsEarlyLeavesTheBlocksItWaitedForAndTheirGetIsStopped() throws Exception {
        String etag = client.put("bucket", "key", TestData.bytes(256 * KIB, 2));
        PinnedVersion version = new PinnedVersion(etag, 256 * KIB, 1);
        var held = client.holdBodies(request -> request.isGet());
        Block claimed;
        try (ObjectRead read = acquire(version)) {
            ReentrantLock lock = cache.lockFor(read.id());
            lock.lock();
            try {
                claimed = read.claim(new ByteRange(0, 32 * KIB), false);
            } finally {
                lock.unlock();
            }
            read.submit();
            assertThat(held.awaitHeld(1)).isTrue();
            // ends without waiting (as an interrupted read does): nobody else wants the block
        }
        assertThat(held.awaitClosedWhileHeld(1)).as("the GET is cut").isTrue();
        // before any release: a cut body fails its read, as a cut connection does
        assertThatThrownBy(() -> claimed.loaded().get(30, java.util.concurrent.TimeUnit.SECONDS))
                .hasCauseInstanceOf(io.rangefetch.internal.fetch.FetchCancelledException.class);
        held.release();
        assertThat(cache.heldBytes()).isZero();
    }

    /**
     * A prefetch dropped under the governor fails its blocks, which takes them out of the index first. A read that
     * found one in the index just before, while another read still held a reference, must not take it for a loaded
     * block: its range would fail with the drop (the randomized suite's seed 19215773396152 did, one run in a few
     * hundred). It looks again and fetches the bytes itself.
     */
    @Test
    void aBlockWhoseGetFailedIsNotTakenForALoadedOne() throws Exception {
        String etag = client.put("bucket", "key", TestData.bytes(256 * KIB, 3));
        PinnedVersion version = new PinnedVersion(etag, 256 * KIB, 1);
        Block prefetched;
        try (ObjectRead prefetch = acquire(version)) {
            ReentrantLock lock = cache.lockFor(prefetch.id());
            lock.lock();
            try {
                prefetched = prefetch.claim(new ByteRange(0, 32 * KIB), true);
            } finally {
                lock.unlock();
            }
            // another read's reference keeps the block's array alive through the failure
            assertThat(cache.retain(prefetched)).isTrue();
            cache.fail(prefetched, new io.rangefetch.internal.fetch.FetchCancelledException("dropped", null));
            try (ObjectRead read = acquire(version)) {
                assertThat(read.take(prefetched)).as("a failed block taken").isFalse();
                assertThat(cache.blocksOverlapping(read.id(), 0, 256 * KIB))
                        .as("out of the index")
                        .isEmpty();
            }
        }
        cache.release(prefetched);
        assertThat(cache.heldBytes()).isZero();
    }
}
