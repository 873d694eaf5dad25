package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.WaitSplit;
import io.rangefetch.internal.plan.AdaptiveMinimum;
import io.rangefetch.internal.plan.FetchPlan;
import io.rangefetch.internal.plan.ReadPlan;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.ReadRequest;
import io.rangefetch.internal.plan.SequentialState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One streaming or positioned read that the quiet path ({@link StreamingState#readQuietly}) could not serve: the
 * template of {@link ObjectRead} (look up, plan, claim, submit) with the planner shaped for it, then its bytes copied
 * into the caller's buffer.
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
 * streaming state, and the stream serializes them. Its steps ({@link #plan}, {@link #fromBlock}, {@link #direct})
 * run under the object's stripe lock and take no lock of their own (the ramp's reach is a volatile write, see {@link Predictions}); the adaptive minimum is
 * told outside it; nothing is locked while the read waits for its bytes.
 */
final class PlannedRead extends ObjectRead {
    private final ObjectReader stream;
    private final ReadRequest read;
    private final byte[] buffer;
    private final int offset;
    private final ByteBuffer target;
    // where the read's bytes come from, added by the steps under the lock
    private final List<Source> sources = new ArrayList<>();
    // the planner this read plans with: the stream's, grown to its demand minimum (or a small object's parts)
    private ReadPlanner planner;
    private ReadPlan plan;

    /**
     * @param read the read, of {@code pinned}; a streaming one plans with (and moves) the stream's sequential state
     * @param planner the stream's planner, as its format policy shaped its reads
     * @param buffer the caller's buffer: the read's first byte goes to {@code offset}
     */
    PlannedRead(
            ObjectReader stream,
            PinnedVersion pinned,
            ReadRequest read,
            ReadPlanner planner,
            byte[] buffer,
            int offset) {
        super(stream, pinned);
        this.stream = stream;
        this.read = requireNonNull(read, "read is null");
        this.planner = requireNonNull(planner, "planner is null");
        this.buffer = requireNonNull(buffer, "buffer is null");
        this.offset = offset;
        this.target = ByteBuffer.wrap(buffer);
    }

    /**
     * Plans, fetches and copies the read; returns how many bytes it copied: all of them, unless a streaming read
     * handed over early.
     *
     * @param missed whether the request that learned the version was this read's (then it counts as a miss)
     * @param afterSubmit runs once the read's own GETs are submitted, before it waits for them
     */
    int run(boolean missed, Runnable afterSubmit) throws IOException {
        AdaptiveMinimum demandMinimum = stream.demandMinimum();
        boolean adapts = !planner.isSmall(pinned.length());
        if (adapts) {
            if (read.streaming()) {
                // Reads served quietly (StreamingState.readQuietly) were never planned, so never told; each of them
                // started where the last ended, so the run they continued was read whole, from its start to here.
                SequentialState run = stream.streaming().sequential();
                if (run.streakStart() >= 0 && run.nextExpected() > run.streakStart()) {
                    demandMinimum.touched(run.streakStart(), run.nextExpected());
                }
            }
            demandMinimum.touched(read.position(), read.end());
            planner = planner.withDemandMinimum(demandMinimum.minimum());
        } else {
            planner = planner.withSmallObjectParts(
                    stream.partsAffordable(planner.settings().prefetchParallelism()));
        }
        try {
            acquire(planner.lookupWindow(read), List.of(new ByteRange(read.position(), read.end())));
            afterSubmit.run();
            if (adapts) {
                demandMinimum.planned(read.position(), read.end(), plan.demand(), pinned.length());
            }
            sources.sort(Comparator.comparingLong(source -> source.range().start()));
            int copied = copy(plan.quietEnd());
            succeeded();
            boolean fetched = sources.stream().anyMatch(Source::own);
            stream.statistics().served(copied, !missed && !fetched);
            return copied;
        } finally {
            close();
            WaitSplit.commit(
                    waits(),
                    stream.id(),
                    stream.address().bucket(),
                    stream.address().key(),
                    read.streaming() ? "streaming" : "positioned",
                    read.position(),
                    read.end() - read.position());
        }
    }

    // The read's steps under the object's lock: its plan, and where its bytes come from (its one range, index 0).

    @Override
    FetchPlan plan(List<Block> known) {
        ReadRequest request = read;
        if (read.streaming()) {
            long position = read.position();
            request = read.starved(sources.stream()
                    .anyMatch(source ->
                            source.range().contains(position) && !source.block().isDone()));
        }
        plan = planner.plan(
                request,
                read.streaming() ? stream.streaming().sequential() : SequentialState.initial(),
                known.stream().map(Block::range).toList());
        if (read.streaming()) {
            stream.streaming().advance(plan.next());
        }
        return FetchPlan.of(plan);
    }

    @Override
    FetchCause causeOf(boolean prefetch) {
        if (prefetch) {
            return FetchCause.SEQUENTIAL_PREFETCH;
        }
        return planner.isSmall(pinned.length()) ? FetchCause.SMALL_OBJECT : FetchCause.DEMAND;
    }

    @Override
    void fromBlock(int reader, Block block, boolean cached) {
        sources.add(new Source(block.range(), block, !cached, null));
    }

    @Override
    void direct(int reader, BlockGet fetch, ByteRange bytes) {
        // no room: only the bytes the reader asked for, straight into its buffer
        directInto(fetch, bytes, target, offset + (int) (bytes.start() - read.position()));
        sources.add(new Source(bytes, null, true, fetch));
    }

    @Override
    void prefetchClaimed(ByteRange bytes) {
        stream.predictions().rampReaches(bytes.end()); // only streaming reads plan a ramp
    }

    /** Copies the read's bytes from its sources in order; a streaming read hands over what is ready early. */
    private int copy(long quietEnd) throws IOException {
        BlockCache cache = stream.engine().cache();
        StreamingState streaming = stream.streaming();
        long end = read.end();
        long cursor = read.position();
        int copied = 0;
        StreamingState.QuietBlock last = null;
        for (Source source : sources) {
            if (source.range().end() <= cursor) {
                continue;
            }
            if (source.range().start() > cursor) {
                throw new IllegalStateException("Plan for " + stream.address() + " left " + cursor + " uncovered");
            }
            int count = (int) (Math.min(source.range().end(), end) - cursor);
            if (source.block() == null) {
                // a direct GET into the buffer is always waited for: nothing may write there after the read returns
                await(source.fetch());
                last = null;
            } else {
                if (copied > 0 && read.streaming() && !source.block().isDone()) {
                    break; // hand over what is here; the next read waits for the rest
                }
                byte[] data = await(source.block(), source.own());
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
                await(source.fetch()); // past an early hand-over: still the reader's buffer
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
                keep(next.block()); // its reference now belongs to the streaming state
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
