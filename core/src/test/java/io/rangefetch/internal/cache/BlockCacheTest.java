package io.rangefetch.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class BlockCacheTest {
    private static final AccessIdentity READER = AccessIdentity.unique();
    private static final ObjectId OBJECT = new ObjectId("b", "k", "\"e1\"", READER);
    private final StatisticsCounter statistics = StatisticsCounter.root();

    private Block loaded(BlockCache cache, long start, long length, boolean prefetch) {
        Block block = cache.claim(OBJECT, ByteRange.ofLength(start, length), prefetch, statistics);
        assertThat(block).isNotNull();
        cache.complete(block, new byte[(int) length]);
        return block;
    }

    @Test
    void bytesAreReservedBeforeTheFetchAndTheBudgetIsNeverExceeded() {
        BlockCache cache = new BlockCache(100);
        Block inFlight = cache.claim(OBJECT, ByteRange.ofLength(0, 60), false, statistics);
        assertThat(cache.heldBytes()).isEqualTo(60);
        // in-flight blocks cannot be evicted: a second claim that does not fit is refused
        assertThat(cache.claim(OBJECT, ByteRange.ofLength(60, 60), false, statistics))
                .isNull();
        assertThat(cache.reserve(41)).isFalse();
        cache.complete(inFlight, new byte[60]);
        // once loaded, it can make room for a demand claim
        assertThat(cache.claim(OBJECT, ByteRange.ofLength(60, 60), false, statistics))
                .isNotNull();
        assertThat(cache.heldBytes()).isEqualTo(60);
        assertThat(cache.peakHeldBytes()).isLessThanOrEqualTo(100);
    }

    @Test
    void demandEvictsUnreadPrefetchesFirstAndPrefetchesNeverEvictPrefetches() {
        BlockCache cache = new BlockCache(100);
        Block used = loaded(cache, 0, 40, false);
        cache.markRead(used);
        Block unread = loaded(cache, 40, 40, true);
        // a prefetch may evict only used blocks
        Block prefetch = cache.claim(OBJECT, ByteRange.ofLength(80, 40), true, statistics);
        assertThat(prefetch).isNotNull();
        assertThat(cache.blocksOverlapping(OBJECT, 0, 40)).isEmpty();
        cache.complete(prefetch, new byte[40]);
        assertThat(cache.claim(OBJECT, ByteRange.ofLength(120, 40), true, statistics))
                .isNull();
        // a demand read evicts the oldest unread prefetch before anything else
        Block demand = cache.claim(OBJECT, ByteRange.ofLength(120, 30), false, statistics);
        assertThat(demand).isNotNull();
        assertThat(cache.blocksOverlapping(OBJECT, 40, 80)).isEmpty();
        assertThat(cache.blocksOverlapping(OBJECT, 80, 120)).containsExactly(prefetch);
        assertThat(statistics.prefetchedBytesUnread()).isEqualTo(40);
        assertThat(unread.isDone()).isTrue();
    }

    @Test
    void usedBlocksAreEvictedLeastRecentlyUsedFirst() {
        BlockCache cache = new BlockCache(90);
        Block first = loaded(cache, 0, 30, false);
        Block second = loaded(cache, 30, 30, false);
        Block third = loaded(cache, 60, 30, false);
        cache.markRead(first);
        cache.markRead(second);
        cache.markRead(third);
        cache.markRead(first);
        assertThat(cache.claim(OBJECT, ByteRange.ofLength(90, 30), false, statistics))
                .isNotNull();
        assertThat(cache.blocksOverlapping(OBJECT, 0, 90)).containsExactly(first, third);
    }

    @Test
    void invalidatingAnObjectReleasesLoadedBytesAtOnceAndInFlightBytesWhenTheirFetchEnds() {
        BlockCache cache = new BlockCache(100);
        loaded(cache, 0, 30, false);
        Block inFlight = cache.claim(OBJECT, ByteRange.ofLength(30, 30), true, statistics);
        cache.invalidate(OBJECT);
        assertThat(cache.blocksOverlapping(OBJECT, 0, 100)).isEmpty();
        assertThat(cache.heldBytes()).isEqualTo(30);
        cache.complete(inFlight, new byte[30]);
        assertThat(cache.heldBytes()).isZero();
        assertThat(statistics.prefetchedBytesUnread()).isEqualTo(30);
    }

    @Test
    void aFailedFetchReleasesItsBytesAndLeavesTheIndex() {
        BlockCache cache = new BlockCache(100);
        Block block = cache.claim(OBJECT, ByteRange.ofLength(0, 50), false, statistics);
        cache.fail(block, new java.io.IOException("boom"));
        assertThat(cache.heldBytes()).isZero();
        assertThat(cache.blocksOverlapping(OBJECT, 0, 50)).isEmpty();
        assertThat(block.loaded()).isCompletedExceptionally();
    }

    @Test
    void blocksOfAnotherVersionAreInvisible() {
        BlockCache cache = new BlockCache(100);
        loaded(cache, 0, 50, false);
        assertThat(cache.blocksOverlapping(new ObjectId("b", "k", "\"e2\"", READER), 0, 50))
                .isEmpty();
    }

    @Test
    void blocksAnotherIdentityFetchedAreInvisible() {
        BlockCache cache = new BlockCache(100);
        loaded(cache, 0, 50, false);
        Block claimed = cache.claim(
                new ObjectId("b", "k", "\"e1\"", AccessIdentity.unique()),
                ByteRange.ofLength(0, 50),
                false,
                statistics);
        assertThat(cache.blocksOverlapping(new ObjectId("b", "k", "\"e1\"", AccessIdentity.unique()), 0, 50))
                .isEmpty();
        assertThat(cache.blocksOverlapping(OBJECT, 0, 50)).hasSize(1).doesNotContain(claimed);
    }

    private static final int MIB = 1 << 20;

    private Block loadedFromPool(BlockCache cache, long start, int length) {
        Block block = cache.claim(OBJECT, ByteRange.ofLength(start, length), true, statistics);
        assertThat(block).isNotNull();
        cache.complete(block, cache.bufferFor(block));
        return block;
    }

    @Test
    void aPassedBlockGivesItsArrayToTheNextClaimOfItsSizeButNotWhileAReaderHoldsIt() {
        BlockCache cache = new BlockCache(64L * MIB);
        Block first = loadedFromPool(cache, 0, 4 * MIB);
        byte[] firstArray = first.loaded().join();
        cache.markPassed(first);

        assertThat(cache.retain(first)).isTrue(); // a reader is copying from it
        Block second = loadedFromPool(cache, 4L * MIB, 4 * MIB);
        assertThat(second.loaded().join()).isNotSameAs(firstArray);
        assertThat(cache.blocksOverlapping(OBJECT, 0, 1)).containsExactly(first);

        cache.release(first); // the reader is done
        Block third = loadedFromPool(cache, 8L * MIB, 4 * MIB - 1);
        assertThat(third.loaded().join()).isSameAs(firstArray);
        assertThat(cache.blocksOverlapping(OBJECT, 0, 1)).isEmpty();
        assertThat(cache.heldBytes()).isEqualTo(2L * 4 * MIB); // the second and the third
    }

    @Test
    void anArrayEvictedWhileRetainedIsRecycledOnlyAfterItsLastReleaseAndFreeArraysStayInTheBudget() {
        BlockCache cache = new BlockCache(8L * MIB);
        Block first = loadedFromPool(cache, 0, 4 * MIB);
        byte[] firstArray = first.loaded().join();
        cache.markRead(first);
        assertThat(cache.retain(first)).isTrue();
        cache.invalidate(OBJECT);
        assertThat(cache.heldBytes()).isZero();
        assertThat(cache.retain(first)).isTrue(); // still referenced: retaining works

        cache.release(first);
        cache.release(first);
        assertThat(cache.retain(first)).isFalse(); // gone for good
        assertThat(cache.heldBytes()).isEqualTo(4L * MIB); // its array waits in the free list, counted
        Block reused = loadedFromPool(cache, 0, 4 * MIB);
        assertThat(reused.loaded().join()).isSameAs(firstArray);
        assertThat(cache.heldBytes()).isEqualTo(4L * MIB);

        // a claim of another size drops free arrays before refusing
        cache.invalidate(OBJECT);
        assertThat(cache.claim(OBJECT, ByteRange.ofLength(0, 6L * MIB), false, statistics))
                .isNotNull();
        assertThat(cache.peakHeldBytes()).isLessThanOrEqualTo(8L * MIB);
    }

    @Test
    void givingBackMoreRawBytesThanWereReservedFailsInsteadOfReleasingABlocksBytes() {
        BlockCache cache = new BlockCache(100);
        assertThat(cache.reserve(10)).isTrue();
        assertThat(cache.claim(OBJECT, ByteRange.ofLength(0, 50), false, statistics))
                .isNotNull();
        // 20 would fit under the 60 held, but 10 of them are the block's: the budget would then allow 110 bytes
        assertThatThrownBy(() -> cache.release(20)).isInstanceOf(IllegalStateException.class);
        assertThat(cache.heldBytes()).isEqualTo(60);
        cache.release(10);
        assertThatThrownBy(() -> cache.release(10)).as("released twice").isInstanceOf(IllegalStateException.class);
        assertThat(cache.heldBytes()).isEqualTo(50);
    }

    @Test
    void negativeByteCountsAreRefusedRatherThanMovingTheBudgetTheWrongWay() {
        BlockCache cache = new BlockCache(100);
        assertThat(cache.reserve(50)).isTrue();
        assertThatThrownBy(() -> cache.release(-60)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cache.reserve(-60)).isInstanceOf(IllegalArgumentException.class);
        assertThat(cache.heldBytes()).isEqualTo(50);
    }

    @Test
    void aLoadedBlockIsInsertedOnlyOnBytesReservedForItAndTakesThemOver() {
        BlockCache cache = new BlockCache(100);
        ByteRange range = ByteRange.ofLength(0, 50);
        // without a reservation its bytes would be counted nowhere, and evicting it would release others' bytes
        assertThatThrownBy(() -> cache.insertLoaded(OBJECT, range, new byte[50], statistics))
                .isInstanceOf(IllegalStateException.class);
        assertThat(cache.blocksOverlapping(OBJECT, 0, 50)).isEmpty();

        assertThat(cache.reserve(50)).isTrue();
        assertThat(cache.insertLoaded(OBJECT, range, new byte[50], statistics)).isTrue();
        assertThat(cache.heldBytes()).isEqualTo(50);
        assertThatThrownBy(() -> cache.release(50)).as("the block's now").isInstanceOf(IllegalStateException.class);
        cache.invalidate(OBJECT);
        assertThat(cache.heldBytes()).isZero();
    }

    @Test
    void aReaderReleasingABlockMoreOftenThanItRetainedItCannotRecycleAnArrayTheCacheStillServes() {
        BlockCache cache = new BlockCache(8L * MIB);
        Block block = loadedFromPool(cache, 0, 4 * MIB);
        assertThatThrownBy(() -> cache.release(block)).isInstanceOf(IllegalStateException.class);
        // the array was not counted a second time as a free array, nor given to the next block
        assertThat(cache.heldBytes()).isEqualTo(4L * MIB);
        Block next = loadedFromPool(cache, 4L * MIB, 4 * MIB);
        assertThat(next.loaded().join()).isNotSameAs(block.loaded().join());
    }

    @Test
    void aLoadedBlockEvictedWhileItIsBeingInsertedDoesNotStayInTheIndex() throws InterruptedException {
        // Another thread makes room over and over while this one inserts loaded blocks as a first GET does. Each
        // insert's block is the only one evictable, so the other thread evicts it as soon as it can.
        BlockCache cache = new BlockCache(100);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> evicterFailure = new AtomicReference<>();
        Thread evicter = new Thread(() -> {
            try {
                while (!done.get()) {
                    if (cache.reserve(60)) {
                        cache.release(60);
                    }
                }
            } catch (Throwable e) {
                evicterFailure.set(e);
            }
        });
        evicter.start();
        ReentrantLock lock = cache.lockFor(OBJECT);
        try {
            for (int i = 0; i < 500_000 && evicterFailure.get() == null; i++) {
                if (cache.reserve(50)) {
                    lock.lock();
                    try {
                        if (!cache.insertLoaded(OBJECT, ByteRange.ofLength(i * 50L, 50), new byte[50], statistics)) {
                            cache.release(50);
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            }
        } finally {
            done.set(true);
            evicter.join();
        }
        assertThat(evicterFailure.get()).isNull();
        // every indexed block is still there to read, and holds the only bytes held
        long indexedBytes = 0;
        for (Block block : cache.blocksOverlapping(OBJECT, 0, Long.MAX_VALUE)) {
            assertThat(cache.retain(block)).as("%s is indexed but gone", block).isTrue();
            cache.release(block);
            indexedBytes += block.capacity();
        }
        assertThat(cache.heldBytes()).isEqualTo(indexedBytes);
    }

    @Test
    void aClaimEvictsAPassedBlockForItsArrayOnlyWhenThePoolWouldKeepThatArray() {
        BlockCache cache = new BlockCache(64L * MIB);
        Block small = loaded(cache, 0, 100, false);
        cache.markPassed(small);
        // an array under the recycling minimum would not be kept: evicting the block would only lose its bytes
        assertThat(cache.claim(OBJECT, ByteRange.ofLength(100, 100), false, statistics))
                .isNotNull();
        assertThat(cache.blocksOverlapping(OBJECT, 0, 100)).containsExactly(small);

        // nor would an array of a length the pool does not make, such as a loaded block's exact length
        int unaligned = 4 * MIB + 1;
        ByteRange range = ByteRange.ofLength(MIB, unaligned);
        assertThat(cache.reserve(unaligned)).isTrue();
        assertThat(cache.insertLoaded(OBJECT, range, new byte[unaligned], statistics))
                .isTrue();
        Block loaded =
                cache.blocksOverlapping(OBJECT, range.start(), range.end()).get(0);
        cache.markPassed(loaded);
        Block claimed = cache.claim(OBJECT, ByteRange.ofLength(8L * MIB, 4 * MIB), false, statistics);
        assertThat(claimed).isNotNull();
        assertThat(cache.blocksOverlapping(OBJECT, range.start(), range.end())).containsExactly(loaded);
    }

    @Test
    void aClaimOfMoreThanSevenEighthsOfTheLargestArrayDoesNotOverflowTheSearchForAFittingOne() {
        BlockCache cache = new BlockCache(4L << 30);
        Block huge = cache.claim(OBJECT, ByteRange.ofLength(0, 2_000_000_000L), false, statistics);
        assertThat(huge).isNotNull(); // no array is made until its fetch asks for one
        assertThat(cache.heldBytes()).isEqualTo(huge.capacity());
        cache.fail(huge, new java.io.IOException("not fetched"));
        assertThat(cache.heldBytes()).isZero();
    }

    @Test
    void aBlockCompletedWithAnArrayOfItsOwnDoesNotKeepTheRecycledOneAlive() {
        BlockCache cache = new BlockCache(8L * MIB);
        loadedFromPool(cache, 0, 4 * MIB);
        cache.invalidate(OBJECT); // its array goes to the pool
        Block block = cache.claim(OBJECT, ByteRange.ofLength(0, 4 * MIB), false, statistics);
        assertThat(block.recycled).as("handed a recycled array").isNotNull();
        cache.complete(block, new byte[block.capacity()]);
        // two arrays alive for one block's bytes in the budget: memory the budget does not see
        assertThat(block.recycled).isNull();
        assertThat(cache.heldBytes()).isEqualTo(4L * MIB);
    }
}
