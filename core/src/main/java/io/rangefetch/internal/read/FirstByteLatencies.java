package io.rangefetch.internal.read;

import java.util.Arrays;

/**
 * The recent first-byte latencies of GETs, per size class (up to 256 KiB, 1 MiB, 4 MiB, larger: a larger
 * range may take S3 longer to start), and a high percentile of each: when a GET is hedged. Each class keeps its
 * last {@value #WINDOW} samples; its percentile is worked out again every {@value #RECOMPUTE_EVERY} samples,
 * so a GET reads a number instead of sorting. Until a class has {@value #MIN_SAMPLES} samples it has no
 * percentile (-1): there is nothing yet to call slow, and {@link AttemptSender} waits a fixed, longer time before
 * it hedges such a GET.
 *
 * <p>Thread-safe: each class is guarded by its own monitor, held for a few array writes (and a sort of
 * {@value #WINDOW} longs every {@value #RECOMPUTE_EVERY} samples).
 */
final class FirstByteLatencies {
    static final int WINDOW = 256;
    static final int MIN_SAMPLES = 16;
    private static final int RECOMPUTE_EVERY = 16;
    private static final long[] CLASS_LIMITS = {256L << 10, 1L << 20, 4L << 20, Long.MAX_VALUE};

    private final double percentile;
    private final SizeClass[] classes = new SizeClass[CLASS_LIMITS.length];

    FirstByteLatencies(double percentile) {
        this.percentile = percentile;
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new SizeClass();
        }
    }

    void record(long requestBytes, long nanos) {
        classes[classOf(requestBytes)].record(nanos, percentile);
    }

    /** The percentile of the class of a GET of {@code requestBytes}, in nanoseconds; -1 until known. */
    long percentileNanos(long requestBytes) {
        return classes[classOf(requestBytes)].current;
    }

    private static int classOf(long requestBytes) {
        int i = 0;
        while (requestBytes > CLASS_LIMITS[i]) {
            i++;
        }
        return i;
    }

    private static final class SizeClass {
        private final long[] samples = new long[WINDOW];
        private int count;
        private int next;
        private volatile long current = -1;

        synchronized void record(long nanos, double percentile) {
            samples[next] = nanos;
            next = (next + 1) % WINDOW;
            count = Math.min(count + 1, WINDOW);
            if (count >= MIN_SAMPLES && (count < WINDOW ? count : next) % RECOMPUTE_EVERY == 0) {
                long[] sorted = Arrays.copyOf(samples, count);
                Arrays.sort(sorted);
                current = sorted[(int) Math.min(count - 1, Math.ceil(percentile * count) - 1)];
            }
        }
    }
}
