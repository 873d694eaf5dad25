package io.rangefetch.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Random sequences of everything a read engine does to the cache, on a cache small enough that almost every claim
 * evicts and whose array pool recycles arrays of 16 bytes and more. After every step the budget must account for
 * every byte: held bytes are exactly those of in-flight and resident blocks, free arrays and raw reservations,
 * and never more than the capacity.
 */
class BlockCachePropertiesTest {
    private static final int CAPACITY = 96;
    private static final int RECYCLE_MIN_BYTES = 16;
    private static final int RECYCLE_GRANULE = 4;
    private static final AccessIdentity READER = AccessIdentity.unique();
    private static final AccessIdentity OTHER_READER = AccessIdentity.unique();
    private static final List<ObjectId> OBJECTS = List.of(
            new ObjectId("b", "k", "\"e1\"", READER),
            new ObjectId("b", "k", "\"e2\"", READER),
            // the same version as another identity fetched it: its blocks are another object's
            new ObjectId("b", "k", "\"e1\"", OTHER_READER));

    /** An operation, with how often it comes relative to the others. */
    enum Kind {
        CLAIM(6),
        INSERT_LOADED(2),
        COMPLETE(4),
        FAIL(1),
        FORGET(1),
        RETAIN(3),
        RELEASE_BLOCK(3),
        RESERVE(2),
        RELEASE_BYTES(2),
        MARK_PASSED(3),
        MARK_READ(3),
        INVALIDATE(1),
        CLEAR(1);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    /**
     * One operation. {@code pick} chooses among the blocks, references or reservations the operation applies to;
     * {@code flag} is a claim's prefetch flag, or whether a completing fetch fills the array the cache handed out.
     */
    record Step(Kind kind, int object, int pick, long start, int length, boolean flag) {}

    @Property(tries = 1000)
    void everyHeldByteIsAccountedForAndTheBudgetIsNeverExceeded(@ForAll("steps") List<Step> steps) {
        Run run = new Run();
        for (Step step : steps) {
            run.apply(step);
            run.checkAfter(step);
        }
        run.endEverything();
        assertThat(run.cache.heldBytes())
                .as("held once everything is released and cleared")
                .isZero();
        assertThat(run.cache.freeArrayBytes()).isZero();
        assertThat(run.cache.peakHeldBytes()).isLessThanOrEqualTo(CAPACITY);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Kind> kinds = Arbitraries.frequency(Arrays.stream(Kind.values())
                .map(kind -> Tuple.of(kind.weight, kind))
                .toList());
        return Combinators.combine(
                        kinds,
                        Arbitraries.integers().between(0, OBJECTS.size() - 1),
                        Arbitraries.integers().between(0, 1000),
                        Arbitraries.longs().between(0, 160),
                        // mostly a few sizes the pool recycles, so that freed arrays find takers
                        Arbitraries.frequencyOf(
                                Tuple.of(3, Arbitraries.of(16, 20, 24)),
                                Tuple.of(1, Arbitraries.integers().between(1, 40))),
                        Arbitraries.of(true, false))
                .as(Step::new)
                .list()
                .ofMinSize(1)
                .ofMaxSize(150)
                .withSizeDistribution(RandomDistribution.uniform());
    }

    /** The cache and what the test knows it handed out. */
    private static final class Run {
        final BlockCache cache = new BlockCache(CAPACITY, RECYCLE_MIN_BYTES, RECYCLE_GRANULE);
        final StatisticsCounter statistics = StatisticsCounter.root();
        // Every block the cache made, claimed or inserted.
        final List<Block> blocks = new ArrayList<>();
        // Claimed blocks whose GET has not ended yet.
        final List<Block> inFlight = new ArrayList<>();
        // One entry per reference a reader holds.
        final List<Block> retained = new ArrayList<>();
        // Raw reservations not given back yet.
        final List<Long> reservations = new ArrayList<>();

        void apply(Step step) {
            ObjectId object = OBJECTS.get(step.object());
            ByteRange range = ByteRange.ofLength(step.start(), step.length());
            switch (step.kind()) {
                case CLAIM ->
                    underLock(object, () -> {
                        // the engine's contract: claim only what nothing covers yet
                        if (cache.blocksOverlapping(object, range.start(), range.end())
                                .isEmpty()) {
                            Block block = cache.claim(object, range, step.flag(), statistics);
                            if (block != null) {
                                blocks.add(block);
                                inFlight.add(block);
                            }
                        }
                        return true;
                    });
                case INSERT_LOADED -> {
                    // as the first GET of a stream does: reserve, fetch, then try to index what came back
                    if (cache.reserve(step.length())) {
                        boolean inserted = underLock(
                                object, () -> cache.insertLoaded(object, range, new byte[step.length()], statistics));
                        if (inserted) {
                            blocks.add(cache.blocksOverlapping(object, range.start(), range.start() + 1)
                                    .get(0));
                        } else {
                            cache.release(step.length());
                        }
                    }
                }
                case COMPLETE -> {
                    Block block = takeOne(inFlight, step.pick());
                    if (block != null) {
                        cache.complete(block, step.flag() ? cache.bufferFor(block) : new byte[block.capacity()]);
                    }
                }
                case FAIL -> {
                    Block block = takeOne(inFlight, step.pick());
                    if (block != null) {
                        cache.fail(block, new IOException("injected"));
                    }
                }
                case FORGET -> {
                    Block block = pickBlock(step.pick());
                    if (block != null) {
                        underLock(block.object(), () -> {
                            cache.forget(block);
                            return true;
                        });
                    }
                }
                case RETAIN -> {
                    Block block = pickBlock(step.pick());
                    if (block != null && cache.retain(block)) {
                        retained.add(block);
                    }
                }
                case RELEASE_BLOCK -> {
                    Block block = takeOne(retained, step.pick());
                    if (block != null) {
                        cache.release(block);
                    }
                }
                case RESERVE -> {
                    if (cache.reserve(step.length())) {
                        reservations.add((long) step.length());
                    }
                }
                case RELEASE_BYTES -> {
                    Long reserved = takeOne(reservations, step.pick());
                    if (reserved != null) {
                        // sometimes only part of it, as when a first GET returns less than it asked for
                        long part = Math.min(reserved, step.length());
                        cache.release(part);
                        if (part < reserved) {
                            reservations.add(reserved - part);
                        }
                    }
                }
                case MARK_PASSED -> {
                    Block block = pickBlock(step.pick());
                    if (block != null) {
                        cache.markPassed(block);
                    }
                }
                case MARK_READ -> {
                    Block block = pickBlock(step.pick());
                    if (block != null) {
                        cache.markRead(block);
                    }
                }
                case INVALIDATE -> cache.invalidate(object);
                case CLEAR -> cache.clear();
            }
        }

        /** Every fetch ends, every reader lets go, every reservation is given back, then the cache is cleared. */
        void endEverything() {
            for (boolean succeeds = true; !inFlight.isEmpty(); succeeds = !succeeds) {
                Block block = inFlight.remove(0);
                if (succeeds) {
                    cache.complete(block, cache.bufferFor(block));
                } else {
                    cache.fail(block, new IOException("injected"));
                }
                checkAfter("ending the fetch of " + block);
            }
            while (!retained.isEmpty()) {
                Block block = retained.remove(0);
                cache.release(block);
                checkAfter("releasing " + block);
            }
            while (!reservations.isEmpty()) {
                long bytes = reservations.remove(0);
                cache.release(bytes);
                checkAfter("releasing " + bytes + " reserved bytes");
            }
            cache.clear();
            checkAfter("clearing");
            for (ObjectId object : OBJECTS) {
                assertThat(cache.blocksOverlapping(object, 0, Long.MAX_VALUE)).isEmpty();
            }
        }

        void checkAfter(Object step) {
            long held = cache.heldBytes();
            long blockBytes = blocks.stream()
                    .filter(Run::holdsBytes)
                    .mapToLong(Block::capacity)
                    .sum();
            long reserved = reservations.stream().mapToLong(Long::longValue).sum();
            assertThat(held).as("held after %s", step).isBetween(0L, (long) CAPACITY);
            assertThat(held)
                    .as(
                            "held after %s: %d in blocks, %d in free arrays, %d reserved",
                            step, blockBytes, cache.freeArrayBytes(), reserved)
                    .isEqualTo(blockBytes + cache.freeArrayBytes() + reserved);
            assertThat(cache.peakHeldBytes()).as("peak after %s", step).isBetween(held, (long) CAPACITY);

            for (ObjectId object : OBJECTS) {
                long end = 0;
                for (Block block : cache.blocksOverlapping(object, 0, Long.MAX_VALUE)) {
                    assertThat(block.state)
                            .as("state of indexed %s after %s", block, step)
                            .isIn(Block.State.PENDING, Block.State.RESIDENT);
                    assertThat(block.range().start())
                            .as("%s overlaps the block before it", block)
                            .isGreaterThanOrEqualTo(end);
                    end = block.range().end();
                }
            }

            // No array may serve two blocks that are still cached or read: a recycled array must be free.
            Set<byte[]> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
            Set<Block> live = new LinkedHashSet<>(retained);
            blocks.stream().filter(Run::holdsBytes).forEach(live::add);
            for (Block block : live) {
                for (byte[] array : arraysOf(block)) {
                    assertThat(arrays.add(array))
                            .as("%s shares its array after %s", block, step)
                            .isTrue();
                }
            }
        }

        private static boolean holdsBytes(Block block) {
            return block.state == Block.State.PENDING
                    || block.state == Block.State.RESIDENT
                    || block.state == Block.State.ORPHANED;
        }

        private static List<byte[]> arraysOf(Block block) {
            List<byte[]> arrays = new ArrayList<>(2);
            if (block.recycled != null) {
                arrays.add(block.recycled);
            }
            CompletableFuture<byte[]> loaded = block.loaded();
            if (loaded.isDone() && !loaded.isCompletedExceptionally() && loaded.join() != block.recycled) {
                arrays.add(loaded.join());
            }
            return arrays;
        }

        private boolean underLock(ObjectId object, BooleanSupplier action) {
            ReentrantLock lock = cache.lockFor(object);
            lock.lock();
            try {
                return action.getAsBoolean();
            } finally {
                lock.unlock();
            }
        }

        // Mostly a block the cache still holds: most blocks made are long gone, and operations on them do nothing.
        // Now and then any block, since a reader may still have a gone block in hand.
        private Block pickBlock(int pick) {
            List<Block> held = blocks.stream().filter(Run::holdsBytes).toList();
            return pickOne(pick % 4 == 0 || held.isEmpty() ? blocks : held, pick / 4);
        }

        private static <T> T pickOne(List<T> list, int pick) {
            return list.isEmpty() ? null : list.get(Math.floorMod(pick, list.size()));
        }

        private static <T> T takeOne(List<T> list, int pick) {
            return list.isEmpty() ? null : list.remove(Math.floorMod(pick, list.size()));
        }
    }
}
