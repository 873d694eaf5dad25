package io.rangefetch.internal.read;

import io.rangefetch.internal.cache.Block;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One stream's prefetched blocks while they load, so that closing the stream stops the ones nobody waits for: a
 * block no reader joined is abandoned, and a GET whose blocks are all abandoned is cancelled (see
 * {@link BlockGet}). A block a reader joined loads on for that reader. Thread-safe.
 */
final class PrefetchTracker {
    private final Set<Block> loading = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    void track(List<Block> blocks) {
        for (Block block : blocks) {
            loading.add(block);
            block.loaded().whenComplete((data, failure) -> loading.remove(block));
            if (closed) {
                block.tryAbandon(); // the stream closed while the read that prefetched it was planning
            }
        }
    }

    void close() {
        closed = true;
        loading.forEach(Block::tryAbandon);
    }
}
