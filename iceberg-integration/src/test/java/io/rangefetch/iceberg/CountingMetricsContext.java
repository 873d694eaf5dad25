package io.rangefetch.iceberg;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.metrics.MetricsContext;

/** A metrics context that keeps every counter, by name, and records which thread last counted. */
final class CountingMetricsContext implements MetricsContext {
    private static final long serialVersionUID = 1L;

    private final Map<String, CountingCounter> counters = new ConcurrentHashMap<>();

    @Override
    public org.apache.iceberg.metrics.Counter counter(String name, Unit unit) {
        return counters.computeIfAbsent(name, ignored -> new CountingCounter(unit));
    }

    long value(String name) {
        CountingCounter counter = counters.get(name);
        return counter == null ? 0 : counter.value();
    }

    Thread lastThread(String name) {
        return counters.get(name).lastThread;
    }

    static final class CountingCounter implements org.apache.iceberg.metrics.Counter, java.io.Serializable {
        private static final long serialVersionUID = 1L;
        private final AtomicLong value = new AtomicLong();
        private final Unit unit;
        private transient volatile Thread lastThread;

        CountingCounter(Unit unit) {
            this.unit = unit;
        }

        @Override
        public void increment() {
            increment(1L);
        }

        @Override
        public void increment(long amount) {
            value.addAndGet(amount);
            lastThread = Thread.currentThread();
        }

        @Override
        public long value() {
            return value.get();
        }

        @Override
        public Unit unit() {
            return unit;
        }
    }
}
