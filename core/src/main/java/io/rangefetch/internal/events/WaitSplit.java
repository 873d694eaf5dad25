package io.rangefetch.internal.events;

import io.rangefetch.internal.events.GetPhases.Phase;

/**
 * One read's waits, and how they split between the phases of the GETs it waited for: what a {@link ReadWaitEvent}
 * reports. Made only while a recording wants read waits ({@link #start}); {@code null} otherwise, and every method
 * here takes that {@code null}, so a read pays one check when nothing records.
 *
 * <p>Not thread-safe: one read's thread.
 *
 * <p><b>Public because</b> {@code internal.read} ({@code ObjectRead}, {@code PlannedRead}, {@code ObjectVersion})
 * records its reads' waits with it.
 */
public final class WaitSplit {
    private final ReadWaitEvent event = new ReadWaitEvent();
    private boolean begun;
    private long waited;
    private long queue;
    private long throttle;
    private long firstByte;
    private long transfer;
    private long backoff;
    private boolean joined;

    private WaitSplit() {}

    /** A split for a read about to wait, or {@code null} while no recording wants read waits. */
    public static WaitSplit start() {
        return ReadWaitEvent.isRecording() ? new WaitSplit() : null;
    }

    /**
     * Call before a wait: the time to pass to {@link #waited} after it (0 when {@code split} is {@code null}). The
     * event spans the read from its first wait to its last.
     */
    public static long beforeWait(WaitSplit split) {
        if (split == null) {
            return 0;
        }
        if (!split.begun) {
            split.begun = true;
            split.event.begin();
        }
        return System.nanoTime();
    }

    /**
     * The read waited from {@code from} until now for a GET that went through {@code phases}; {@code joined} when
     * another stream, or a prefetch, had sent it.
     */
    public static void waited(WaitSplit split, long from, GetPhases phases, boolean joined) {
        if (split == null) {
            return;
        }
        long to = System.nanoTime();
        split.waited += to - from;
        split.joined |= joined;
        if (phases != null) {
            phases.attribute(from, to, split);
        }
    }

    void add(Phase phase, long nanos) {
        switch (phase) {
            case QUEUED -> queue += nanos;
            case THROTTLE -> throttle += nanos;
            case FIRST_BYTE -> firstByte += nanos;
            case TRANSFER -> transfer += nanos;
            case BACKOFF -> backoff += nanos;
            case ENDED -> {} // the bytes were there: the rest of the wait was the read's own hand-off
        }
    }

    /** Records the read's {@link ReadWaitEvent} if it waited at all. */
    public static void commit(
            WaitSplit split, long stream, String bucket, String key, String kind, long position, long bytes) {
        if (split == null || split.waited <= 0) {
            return;
        }
        ReadWaitEvent event = split.event;
        event.end();
        if (!event.shouldCommit()) {
            return;
        }
        event.waited = split.waited;
        event.stream = stream;
        event.bucket = bucket;
        event.key = key;
        event.kind = kind;
        event.position = position;
        event.bytes = bytes;
        event.queue = split.queue;
        event.throttle = split.throttle;
        event.firstByte = split.firstByte;
        event.transfer = split.transfer;
        event.backoff = split.backoff;
        event.joined = split.joined;
        event.waitedOn = split.largest();
        event.commit();
    }

    private String largest() {
        String name = "other";
        long most = 0;
        long[] parts = {queue, throttle, firstByte, transfer, backoff};
        String[] names = {"scheduler queue", "throttle place", "first byte", "transfer", "backoff"};
        for (int i = 0; i < parts.length; i++) {
            if (parts[i] > most) {
                most = parts[i];
                name = names[i];
            }
        }
        return joined && most > 0 ? "another stream's GET" : name;
    }
}
