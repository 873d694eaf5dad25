package io.rangefetch.benchmarks.run;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;

/**
 * The heap a run used at its peak. {@link #start()} collects garbage, notes what is still in use (the runner's
 * expected bytes, an in-process server's objects) and resets every heap pool's peak; {@link #finish()} sums
 * the pools' peaks since. The sum can exceed the heap's true simultaneous peak (pools peak at different
 * moments), and the young pools fill with garbage up to their size before a collection, so read it as the
 * memory a reader made the JVM reserve rather than what it kept.
 */
final class HeapProbe {

    private final List<MemoryPoolMXBean> pools;
    private final long baselineBytes;

    private HeapProbe(List<MemoryPoolMXBean> pools, long baselineBytes) {
        this.pools = pools;
        this.baselineBytes = baselineBytes;
    }

    static HeapProbe start() {
        List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(pool -> pool.getType() == MemoryType.HEAP && pool.isValid())
                .toList();
        System.gc();
        long baseline =
                pools.stream().mapToLong(pool -> pool.getUsage().getUsed()).sum();
        pools.forEach(MemoryPoolMXBean::resetPeakUsage);
        return new HeapProbe(pools, baseline);
    }

    /** Heap in use right after the collection that {@link #start()} ran. */
    long baselineBytes() {
        return baselineBytes;
    }

    /** The sum of the heap pools' peak usage since {@link #start()}. */
    long finish() {
        return pools.stream().mapToLong(pool -> pool.getPeakUsage().getUsed()).sum();
    }
}
