package io.rangefetch.internal.read;

import io.rangefetch.client.ByteRange;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.plan.ReadPlan;
import io.rangefetch.internal.plan.SequentialState;
import io.rangefetch.internal.stats.StatisticsCounter;

/**
 * What a stream's streaming reads remember between calls: the sequential state the planner ramps prefetch with,
 * and the loaded block the last read ended in, from which the next read may be served without planning.
 *
 * <p>Not thread-safe: the stream serializes its streaming reads (its streaming lock), and only they touch this.
 */
final class StreamingState {
    private final BlockCache cache;
    private SequentialState sequential = SequentialState.initial();
    private QuietBlock quiet;

    StreamingState(BlockCache cache) {
        this.cache = cache;
    }

    SequentialState sequential() {
        return sequential;
    }

    void advance(SequentialState next) {
        sequential = next;
    }

    /** The stream moved to a new version: what was read in a row was another version. */
    void reset() {
        sequential = SequentialState.initial();
        replaceQuiet(null);
    }

    /**
     * Serves a read from the block the last one ended in, without planning, when the planner said such a read
     * would need nothing fetched (see {@link ReadPlan#quietEnd()}); 0 when it cannot. A sequential scan of 8 KiB
     * reads spends most of its reads here, so this path takes no lock and allocates nothing.
     */
    int readQuietly(
            PinnedVersion current, long position, byte[] buffer, int offset, int len, StatisticsCounter statistics) {
        QuietBlock block = quiet;
        if (block == null || position != sequential.nextExpected() || block.version() != current) {
            return 0;
        }
        long end = Math.min(position + len, current.length());
        ByteRange range = block.block().range();
        if (end > block.quietEnd() || position < range.start() || end > range.end()) {
            return 0;
        }
        int count = (int) (end - position);
        System.arraycopy(block.data(), (int) (position - range.start()), buffer, offset, count);
        sequential = sequential.followedBy(end);
        statistics.served(count, true);
        return count;
    }

    /**
     * The block the last read ended in, whose reference this state now holds ({@code null}: none); the one it
     * held before is released, marked passed when a sequential reader has moved beyond it.
     */
    void replaceQuiet(QuietBlock next) {
        QuietBlock previous = quiet;
        quiet = next;
        if (previous != null) {
            if (sequential.window() > 0 && previous.block().range().end() <= sequential.nextExpected()) {
                cache.markPassed(previous.block());
            }
            cache.release(previous.block());
        }
    }

    /** The loaded block a streaming read ended in, and how far reads may follow on without a plan. */
    record QuietBlock(PinnedVersion version, Block block, byte[] data, long quietEnd) {}
}
