package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.List;

/**
 * What to fetch for one read: {@code demand} ranges the reader waits for, {@code prefetch} ranges fetched ahead
 * of it, and the stream's next sequential state. Ranges are sorted, disjoint from each other and from what was
 * already cached.
 */
public record ReadPlan(List<ByteRange> demand, List<ByteRange> prefetch, SequentialState next) {

    public ReadPlan {
        demand = List.copyOf(demand);
        prefetch = List.copyOf(prefetch);
    }
}
