package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.plan.FetchPlan;
import io.rangefetch.internal.plan.VectoredPlanner;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One vectored read of one pinned object version: every range's bytes fetched at once, in as few GETs as the
 * coalescing rules allow, each range handed over as soon as its own bytes are in. A prefetch is one too, whose
 * ranges nobody waits for.
 *
 * <p><b>Plan.</b> The template of {@link ObjectRead} takes the bytes already cached or in flight (joining their
 * fetches: a prefetch joined by a waiting reader turns into a demand fetch) and claims the rest under the object's
 * lock, as this read's {@link #plan} ({@link VectoredPlanner}) has them: a small object whole, otherwise the missing pieces coalesced. Where
 * the budget has no room, a GET writes straight into the caller's buffers instead. What is left here is what is
 * vectored's own: the ranges, their buffers, and completing each one.
 *
 * <p><b>Failure.</b> A failed GET fails exactly the ranges whose bytes it carried, with its cause (a range it
 * carried only partly fails too); every other range completes. A GET answered with another ETag fails its
 * ranges with {@link io.rangefetch.ObjectChangedException}.
 *
 * <p>Threads: {@link #start()} runs on the caller's thread and returns once the GETs are queued; GETs run on the
 * scheduler's threads, and a range is copied out on the thread that delivered its last bytes.
 */
final class VectoredRead extends ObjectRead {
    private final ObjectReader stream;
    private final VectoredPlanner planner;
    private final List<VectoredRange> ranges;
    // Set for a prefetch: bytes to bring into the cache, for nobody waiting yet
    private final List<ByteRange> prefetched;
    // Whether the ranges are handed to the stream's reader (they count as served), not to its format policy
    private final boolean forReader;
    // why its GETs are sent
    private final FetchCause cause;
    // wanted range i is assembly i's: the stream checked that a reader's ranges do not overlap
    private final List<Assembly> assemblies = new ArrayList<>();
    // the ranges the read copies out (a prefetch: brings in), set by start
    private List<ByteRange> wanted;

    /**
     * @param planner the stream's vectored planner, as its format policy shaped its reads
     * @param prefetched for a prefetch, the bytes to bring into the cache (then {@code ranges} is empty), else
     *     {@code null}
     * @param forReader {@code false} for a format policy's own read (its footer) or a prefetch: its bytes are not
     *     served to the reader, so they neither count in the statistics nor start the version
     * @param cause why its GETs are sent
     */
    VectoredRead(
            ObjectReader stream,
            VectoredPlanner planner,
            PinnedVersion pinned,
            List<VectoredRange> ranges,
            List<ByteRange> prefetched,
            boolean forReader,
            FetchCause cause) {
        super(stream, pinned);
        this.stream = stream;
        this.planner = requireNonNull(planner, "planner is null");
        this.ranges = List.copyOf(ranges);
        this.prefetched = prefetched == null ? null : List.copyOf(prefetched);
        this.forReader = forReader;
        this.cause = requireNonNull(cause, "cause is null");
    }

    void start() {
        for (VectoredRange range : ranges) {
            if (range.length() == 0) {
                range.complete();
            } else {
                assemblies.add(new Assembly(range));
            }
        }
        assemblies.sort(Comparator.comparingLong(assembly -> assembly.range.offset()));
        wanted = isPrefetch()
                ? VectoredPlanner.union(prefetched, pinned.length())
                : assemblies.stream()
                        .map(assembly -> new ByteRange(assembly.range.offset(), assembly.range.end()))
                        .toList();
        if (wanted.isEmpty()) {
            return; // nothing taken, nothing to let go
        }
        try {
            try {
                // nobody waits for a prefetch: it copies from no block, so takes none
                acquire(planner.lookupWindow(wanted, pinned.length()), isPrefetch() ? List.of() : wanted);
                handOver(); // each range releases the references it holds once it is done
            } finally {
                close();
            }
        } catch (RuntimeException | Error e) {
            // planning failed: close gave back what the read held; the ranges learn why
            assemblies.forEach(assembly -> assembly.range.fail(e));
            throw e;
        }
        assemblies.forEach(Assembly::whenReady);
    }

    private boolean isPrefetch() {
        return prefetched != null;
    }

    // The read's steps under the object's lock.

    @Override
    FetchPlan plan(List<Block> known) {
        List<ByteRange> present = known.stream().map(Block::range).toList();
        return planner.plan(wanted, present, pinned.length(), isPrefetch(), stream::partsAffordable);
    }

    @Override
    FetchCause causeOf(boolean prefetch) {
        return cause;
    }

    @Override
    void fromBlock(int reader, Block block, boolean cached) {
        assemblies.get(reader).fromBlock(block, cached);
    }

    @Override
    void direct(int reader, BlockGet fetch, ByteRange bytes) {
        assemblies.get(reader).direct(fetch, bytes);
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** One caller range and where its bytes come from. */
    private final class Assembly {
        private final VectoredRange range;
        private final List<Block> blocks = new ArrayList<>();
        private final List<CompletableFuture<?>> waits = new ArrayList<>();
        // the GETs that write straight into this range's buffer
        private final List<BlockGet> writtenBy = new ArrayList<>(1);
        private boolean fetched;

        Assembly(VectoredRange range) {
            this.range = range;
        }

        /** Copy from {@code block}, retained for this range already. */
        void fromBlock(Block block, boolean cached) {
            blocks.add(block);
            waits.add(block.loaded());
            fetched |= !cached;
        }

        /** Bytes of this range that {@code fetch} writes straight into its buffer. */
        void direct(BlockGet fetch, ByteRange segment) {
            fetch.direct(segment, range.buffer(), range.indexOf(segment.start()));
            if (!writtenBy.contains(fetch)) {
                writtenBy.add(fetch);
                waits.add(fetch.directWrites());
                fetched = true;
            }
        }

        void whenReady() {
            CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new))
                    .whenComplete((ignored, failure) -> finish(failure));
        }

        private void finish(Throwable failure) {
            try {
                if (failure == null) {
                    copyFromBlocks();
                }
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                blocks.forEach(stream.engine().cache()::release);
            }
            Throwable failed = failure == null ? null : translate(unwrap(failure));
            if (failed == null && forReader) {
                stream.statistics().served(range.length(), !fetched);
            }
            // the caller's callbacks may read again: they run once this fetch has given its slot back
            stream.engine().scheduler().afterSlot(() -> {
                if (failed != null) {
                    range.fail(failed);
                } else {
                    range.complete();
                }
            });
        }

        private void copyFromBlocks() {
            for (Block block : blocks) {
                byte[] data = block.loaded().getNow(null); // loaded: this runs once every wait completed
                long start = Math.max(block.range().start(), range.offset());
                long end = Math.min(block.range().end(), range.end());
                range.buffer()
                        .put(
                                range.indexOf(start),
                                data,
                                (int) (start - block.range().start()),
                                (int) (end - start));
                stream.engine().cache().markRead(block);
            }
        }

        private Throwable translate(Throwable cause) {
            if (cause instanceof HttpStatusException changed && changed.isPreconditionFailed()) {
                return stream.changedUnder(pinned, forReader, changed);
            }
            return cause;
        }
    }
}
