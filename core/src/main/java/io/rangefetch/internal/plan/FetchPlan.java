package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.List;

/**
 * What one read, vectored read or prefetch fetches, in the form every read claims from: the GETs in the order
 * they are claimed, each with the blocks it fills and which of the read's wanted ranges copy from each block.
 *
 * <p><b>Public because</b> {@code internal.read}'s {@code ObjectRead}, {@code PlannedRead} and {@code VectoredRead}
 * carry out the plan.
 *
 * @param gets the GETs, in the order their blocks are claimed (demand before prefetch for a planned read)
 * @param prefetchesInARow whether the prefetch GETs continue one another (a sequential ramp): once one finds no
 *     room in the budget, the ones after it would leave a hole, so they are not claimed either
 */
public record FetchPlan(List<PlannedGet> gets, boolean prefetchesInARow) {

    /** A plan that fetches nothing. */
    public static final FetchPlan NOTHING = new FetchPlan(List.of(), false);

    public FetchPlan {
        gets = List.copyOf(gets);
    }

    /**
     * The GETs of a streaming or positioned read's plan, whose one wanted range (index 0) is the read: it holds
     * and waits for every demand block, as the planner may read more than it asked (a small object whole); its
     * ramp's prefetches are for nobody yet.
     */
    public static FetchPlan of(ReadPlan plan) {
        List<PlannedGet> gets =
                new ArrayList<>(plan.demand().size() + plan.prefetch().size());
        for (ByteRange range : plan.demand()) {
            gets.add(new PlannedGet(range, false, List.of(new PlannedBlock(range, List.of(0)))));
        }
        for (ByteRange range : plan.prefetch()) {
            gets.add(new PlannedGet(range, true, List.of(new PlannedBlock(range, List.of()))));
        }
        return new FetchPlan(gets, true);
    }

    /**
     * One GET: its range, whether it is a prefetch, and the blocks it fills, in object order. Bytes of the range
     * outside every block are read and dropped; a block that finds no room leaves its bytes to be written straight
     * into its readers' buffers.
     */
    public record PlannedGet(ByteRange range, boolean prefetch, List<PlannedBlock> blocks) {

        public PlannedGet {
            blocks = List.copyOf(blocks);
        }
    }

    /**
     * One block to claim, and the wanted ranges (by index, each once) that copy from it; none for a prefetch.
     */
    public record PlannedBlock(ByteRange bytes, List<Integer> readers) {

        public PlannedBlock {
            readers = List.copyOf(readers);
        }
    }
}
