package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.plan.AdaptiveMinimum;
import io.rangefetch.internal.plan.FetchPlan;
import io.rangefetch.internal.plan.ReadPlan;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.ReadRequest;
import io.rangefetch.internal.plan.SequentialState;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * One streaming or positioned read that the quiet path ({@link StreamingState#readQuietly}) could not serve: the
 * planner shaped for it, its bytes got hold of through the stream's {@link ReadOrchestrator}, then copied into the
 * caller's buffer.
 *
 * <p><b>The planner's inputs.</b> The read's demand requests are grown to the stream's {@link AdaptiveMinimum},
 * which is told what the read touches before it is planned and what its plan padded once its GETs are out (so the
 * padding is watched from then on). A small object is read whole whatever the minimum, in as many parts as idle
 * connections pay for: its reads say nothing about padding, so they are not told.
 *
 * <p><b>Copying.</b> The read's bytes come from blocks (cached, joined, or claimed for it) or, when the budget has
 * no room, from GETs writing straight into the caller's buffer; they are copied in order. A streaming read hands
 * over what is ready once it reaches a block still loading (the next read waits for the rest), and leaves the block
 * it ended in to the {@link StreamingState}, whose next read may then be served without planning. Every GET writing
 * into the buffer is waited for before the read returns, past an early hand-over too: nothing may write there once
 * the caller has it back.
 *
 * <p><b>Threads and locks.</b> One instance per read, used on the caller's thread. Only streaming reads touch the
 * streaming state, and the stream serializes them. The planning callbacks run under the object's stripe lock and
 * take no lock of their own (the ramp's reach is a volatile write, see {@link Predictions}); the adaptive minimum is
 * told outside it; nothing is locked while the read waits for its bytes.
 */
final class PlannedRead {
    private final Collaborators with;
    private final PinnedVersion pinned;
    private final ReadRequest read;
    private final ReadPlanner planner;
    private final byte[] buffer;
    private final int offset;

    /**
     * What a stream's planned reads work with: the object (named in errors), the stream's orchestrator, the cache
     * their blocks are marked in, the stream's streaming state, its statistics, its demand minimum, how many
     * parallel parts a request may have now, and its predictions (told where the ramp's prefetches reach).
     */
    record Collaborators(
            ObjectAddress address,
            ReadOrchestrator orchestrator,
            BlockCache cache,
            StreamingState streaming,
            StatisticsCounter statistics,
            AdaptiveMinimum demandMinimum,
            IntUnaryOperator partsAffordable,
            Predictions predictions) {

        Collaborators {
            requireNonNull(address, "address is null");
            requireNonNull(orchestrator, "orchestrator is null");
            requireNonNull(cache, "cache is null");
            requireNonNull(streaming, "streaming is null");
            requireNonNull(statistics, "statistics is null");
            requireNonNull(demandMinimum, "demandMinimum is null");
            requireNonNull(partsAffordable, "partsAffordable is null");
            requireNonNull(predictions, "predictions is null");
        }
    }

    /**
     * @param read the read, of {@code pinned}; a streaming one plans with (and moves) the stream's sequential state
     * @param planner the stream's planner, as its format policy shaped its reads
     * @param buffer the caller's buffer: the read's first byte goes to {@code offset}
     */
    PlannedRead(
            Collaborators with,
            PinnedVersion pinned,
            ReadRequest read,
            ReadPlanner planner,
            byte[] buffer,
            int offset) {
        this.with = requireNonNull(with, "with is null");
        this.pinned = requireNonNull(pinned, "pinned is null");
        this.read = requireNonNull(read, "read is null");
        this.planner = requireNonNull(planner, "planner is null");
        this.buffer = requireNonNull(buffer, "buffer is null");
        this.offset = offset;
    }

    /**
     * Plans, fetches and copies the read; returns how many bytes it copied: all of them, unless a streaming read
     * handed over early.
     *
     * @param missed whether the request that learned the version was this read's (then it counts as a miss)
     * @param afterSubmit runs once the read's own GETs are submitted, before it waits for them
     */
    int run(boolean missed, Runnable afterSubmit) throws IOException {
        ReadPlanner readPlanner = planner;
        AdaptiveMinimum demandMinimum = with.demandMinimum();
        boolean adapts = !readPlanner.isSmall(pinned.length());
        if (adapts) {
            if (read.streaming()) {
                // Reads served quietly (StreamingState.readQuietly) were never planned, so never told; each of them
                // started where the last ended, so the run they continued was read whole, from its start to here.
                SequentialState run = with.streaming().sequential();
                if (run.streakStart() >= 0 && run.nextExpected() > run.streakStart()) {
                    demandMinimum.touched(run.streakStart(), run.nextExpected());
                }
            }
            demandMinimum.touched(read.position(), read.end());
            readPlanner = readPlanner.withDemandMinimum(demandMinimum.minimum());
        } else {
            readPlanner = readPlanner.withSmallObjectParts(
                    with.partsAffordable().applyAsInt(readPlanner.settings().prefetchParallelism()));
        }
        try (Acquisition acquisition = with.orchestrator().open(pinned)) {
            Steps steps = new Steps(acquisition, readPlanner);
            with.orchestrator()
                    .acquire(
                            acquisition,
                            readPlanner.lookupWindow(read),
                            List.of(new ByteRange(read.position(), read.end())),
                            steps);
            afterSubmit.run();
            if (adapts) {
                demandMinimum.planned(read.position(), read.end(), steps.plan.demand(), pinned.length());
            }
            List<Source> sources = steps.sources;
            sources.sort(Comparator.comparingLong(source -> source.range().start()));
            int copied = copy(acquisition, sources, steps.plan.quietEnd());
            acquisition.succeeded();
            boolean fetched = sources.stream().anyMatch(Source::own);
            with.statistics().served(copied, !missed && !fetched);
            return copied;
        }
    }

    /** The read's steps under the object's lock: its plan, and where its bytes come from (its one range, index 0). */
    private final class Steps implements ReadOrchestrator.Planning {
        private final Acquisition acquisition;
        private final ReadPlanner readPlanner;
        private final ByteBuffer target = ByteBuffer.wrap(buffer);
        private final List<Source> sources = new ArrayList<>();
        private ReadPlan plan;

        Steps(Acquisition acquisition, ReadPlanner readPlanner) {
            this.acquisition = acquisition;
            this.readPlanner = readPlanner;
        }

        @Override
        public FetchPlan plan(List<Block> known) {
            ReadRequest request = read;
            if (read.streaming()) {
                long position = read.position();
                request = read.starved(sources.stream()
                        .anyMatch(source -> source.range().contains(position)
                                && !source.block().isDone()));
            }
            plan = readPlanner.plan(
                    request,
                    read.streaming() ? with.streaming().sequential() : SequentialState.initial(),
                    known.stream().map(Block::range).toList());
            if (read.streaming()) {
                with.streaming().advance(plan.next());
            }
            return FetchPlan.of(plan);
        }

        @Override
        public void fromBlock(int reader, Block block, boolean cached) {
            sources.add(new Source(block.range(), block, !cached, null));
        }

        @Override
        public void direct(int reader, BlockGet fetch, ByteRange bytes) {
            // no room: only the bytes the reader asked for, straight into its buffer
            acquisition.directInto(fetch, bytes, target, offset + (int) (bytes.start() - read.position()));
            sources.add(new Source(bytes, null, true, fetch));
        }

        @Override
        public void prefetchClaimed(ByteRange bytes) {
            with.predictions().rampReaches(bytes.end()); // only streaming reads plan a ramp
        }
    }

    /** Copies the read's bytes from its sources in order; a streaming read hands over what is ready early. */
    private int copy(Acquisition acquisition, List<Source> sources, long quietEnd) throws IOException {
        BlockCache cache = with.cache();
        StreamingState streaming = with.streaming();
        long end = read.end();
        long cursor = read.position();
        int copied = 0;
        StreamingState.QuietBlock last = null;
        for (Source source : sources) {
            if (source.range().end() <= cursor) {
                continue;
            }
            if (source.range().start() > cursor) {
                throw new IllegalStateException("Plan for " + with.address() + " left " + cursor + " uncovered");
            }
            int count = (int) (Math.min(source.range().end(), end) - cursor);
            if (source.block() == null) {
                // a direct GET into the buffer is always waited for: nothing may write there after the read returns
                acquisition.await(source.fetch());
                last = null;
            } else {
                if (copied > 0 && read.streaming() && !source.block().isDone()) {
                    break; // hand over what is here; the next read waits for the rest
                }
                byte[] data = acquisition.await(source.block(), source.own());
                System.arraycopy(data, (int) (cursor - source.range().start()), buffer, offset + copied, count);
                cache.markRead(source.block());
                last = new StreamingState.QuietBlock(pinned, source.block(), data, quietEnd);
            }
            cursor += count;
            copied += count;
            if (cursor >= end) {
                break;
            }
        }
        for (Source source : sources) {
            if (source.block() == null && source.range().start() >= cursor) {
                acquisition.await(source.fetch()); // past an early hand-over: still the reader's buffer
            }
        }
        if (read.streaming()) {
            if (streaming.sequential().window() > 0) {
                for (Source source : sources) {
                    if (source.block() != null
                            && source.range().end() <= cursor
                            && source.block().isDone()) {
                        cache.markPassed(source.block());
                    }
                }
            }
            StreamingState.QuietBlock next = cursor == end ? last : null;
            if (next != null) {
                acquisition.keep(next.block()); // its reference now belongs to the streaming state
            }
            streaming.replaceQuiet(next);
            if (cursor < end) {
                // handed over less than planned: the next read starts here and must still count as following on
                streaming.advance(streaming.sequential().at(cursor));
            }
        }
        return copied;
    }

    /** Where a stretch of a read comes from: a block (shared, or claimed by this read), or a direct GET. */
    private record Source(ByteRange range, Block block, boolean own, BlockGet fetch) {}
}
