package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.List;

/**
 * What to fetch for one read: {@code demand} ranges the reader waits for, {@code prefetch} ranges fetched ahead
 * of it, and the stream's next sequential state. Ranges are sorted, disjoint from each other and from what was
 * already cached.
 *
 * <p>{@code quietEnd} lets a stream skip planning: a streaming read that starts exactly where this one ended and
 * ends at or before {@code quietEnd} would get a plan with nothing to fetch and the state
 * {@code next.followedBy(end)}. It equals this read's end when the next read must be planned.
 *
 * <p><b>Public because</b> {@code internal.read.PlannedRead} carries out the plan.
 */
public record ReadPlan(List<ByteRange> demand, List<ByteRange> prefetch, SequentialState next, long quietEnd) {

    public ReadPlan {
        demand = List.copyOf(demand);
        prefetch = List.copyOf(prefetch);
    }
}
