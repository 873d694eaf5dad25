package io.rangefetch.internal.events;

import java.util.Arrays;

/**
 * The phases one GET went through, with when each began, so that a read that waited for it can say what it
 * waited on ({@link ReadWaitEvent}): queued for a fetch thread, waiting for a place under the bucket's throttle
 * governor, sent and waiting for the first byte, receiving, waiting out a backoff, ended. A retry goes through the
 * phases again.
 *
 * <p>Kept only while a recording asks for {@link ReadWaitEvent}: otherwise {@link #start} hands out {@link #OFF},
 * which records nothing. Times are {@link System#nanoTime}, as JFR's. Thread-safe: the fetch thread writes, readers
 * read, under this object's monitor (a few entries a GET, no contention worth a cleverer scheme).
 *
 * <p><b>Public because</b> {@code internal.read} ({@code BlockGet}, {@code FirstFetch}, {@code RetryingSender}) keeps
 * a GET's phases in it and {@code internal.cache.Block} hands them to the reads that wait.
 */
public class GetPhases {
    /** Records nothing: for GETs made while no recording wants read waits. */
    public static final GetPhases OFF = new GetPhases() {
        @Override
        public void enter(Phase phase) {}

        @Override
        public void attribute(long from, long to, WaitSplit split) {}
    };

    /** What a GET is doing. */
    public enum Phase {
        QUEUED,
        THROTTLE,
        FIRST_BYTE,
        TRANSFER,
        BACKOFF,
        ENDED
    }

    private Phase[] phases = new Phase[6];
    private long[] starts = new long[6];
    private int count;

    /** Phases for a new GET, queued from now; {@link #OFF} while no recording wants read waits. */
    public static GetPhases start() {
        if (!ReadWaitEvent.isRecording()) {
            return OFF;
        }
        GetPhases phases = new GetPhases();
        phases.enter(Phase.QUEUED);
        return phases;
    }

    private GetPhases() {}

    /** The GET entered {@code phase} now. Once ended, nothing changes. */
    public synchronized void enter(Phase phase) {
        if (count > 0 && (phases[count - 1] == Phase.ENDED || phases[count - 1] == phase)) {
            return;
        }
        if (count == phases.length) {
            phases = Arrays.copyOf(phases, count * 2);
            starts = Arrays.copyOf(starts, count * 2);
        }
        phases[count] = phase;
        starts[count] = System.nanoTime();
        count++;
    }

    /** Adds to {@code split} how much of the wait from {@code from} to {@code to} fell in each phase. */
    public synchronized void attribute(long from, long to, WaitSplit split) {
        for (int i = 0; i < count; i++) {
            long begin = Math.max(from, starts[i]);
            long end = Math.min(to, i + 1 < count ? starts[i + 1] : to);
            if (end > begin) {
                split.add(phases[i], end - begin);
            }
        }
    }
}
