package io.rangefetch.internal.plan;

import io.rangefetch.client.ByteRange;
import java.util.Arrays;
import java.util.List;

/**
 * The minimum one stream's demand requests are grown to ({@link ReadPlanner#withDemandMinimum}), adapted to how far
 * the stream reads on from where a read of it starts.
 *
 * <p><b>Why.</b> Growing a small read's request to {@code read.min-request-size} pays when the bytes after the read
 * are read next (a sequential reader, a reader of a structure in several small reads): one first-byte latency then
 * serves several reads. For a random reader the padding is moved for nothing: 8 KiB positioned reads under the
 * 64 KiB default move eight times the bytes they read. So each stream measures what its padding is worth.
 *
 * <p><b>Rule.</b> A demand read shorter than the configured minimum is watched: from its start, how far do this
 * stream's reads go on (its own end, and any later read that touches the bytes up to the configured minimum from
 * its start: the stream's run from there). {@value #ROUND} watched reads make a round ({@value #FIRST_ROUND} the
 * first, so that a random reader pads only its first few reads), judged when the next read
 * asks for the {@link #minimum} (after telling what it touched, so the round's last read has been followed by at
 * least that one): the minimum becomes the round's median run. A random reader of 8 KiB reads runs of 8 KiB, so
 * after one round its requests are 8 KiB; one reading pairs of 8 KiB reads runs 16 KiB; a reader of 10 KiB pages
 * whose headers it reads first byte by byte runs a page; a sequential reader runs on to the configured minimum and
 * past it, and keeps it. Nothing is fetched that a median reader leaves unread, so the padding never costs more
 * than the waste {@link WasteBudget} allows a prediction, and the runs are measured whatever was fetched, so a
 * reader that turns sequential is back at the configured minimum after one round.
 *
 * <p><b>Bounds.</b> Always {@code min(configured, }{@value #FLOOR}{@code ) <= minimum() <= configured}. Below
 * 4 KiB a request's time is all first-byte latency and its bytes mostly headers, and formats read in pages of at
 * least that. The median, not the mean or the largest: one read that runs long in a round of short ones (an index)
 * should not pad the others, nor one short read a run of sequential ones.
 *
 * <p><b>Told.</b> Streaming reads served without a plan never reach this class one by one; the stream tells it the
 * run they continued as one span, at its next planned read (telling bytes twice changes nothing).
 *
 * <p><b>Threads.</b> Positioned reads run from many threads on one stream, so every method holds this object's
 * monitor, and only for arithmetic on its own fields: nothing is called out, nothing waited for. Otherwise pure: no
 * I/O, clocks or threads, so it can be tested read by read.
 *
 * <p><b>Public because</b> {@code internal.read.ObjectReader} keeps one per stream, and
 * {@code internal.read.PlannedRead} tells it each read and plan and asks it for the minimum.
 */
public final class AdaptiveMinimum {
    /** The smallest minimum; see the class comment. */
    static final long FLOOR = 4 * 1024;
    /** Watched reads per round. */
    static final int ROUND = 8;
    /** Watched reads in the first round: a short one, so a random reader pads few reads. */
    static final int FIRST_ROUND = 4;

    private final long configured;
    private long minimum;
    /** Where the round's watched reads start, the first {@code watched} of them. */
    private final long[] starts = new long[ROUND];
    /** How far this stream read on from each, at the most. */
    private final long[] reached = new long[ROUND];

    private int watched;
    private int round = FIRST_ROUND;

    /** @param configured the stream's {@code read.min-request-size}: where the minimum starts and its ceiling */
    public AdaptiveMinimum(long configured) {
        if (configured < 1) {
            throw new IllegalArgumentException(
                    "The configured minimum request size must be positive, got " + configured);
        }
        this.configured = configured;
        this.minimum = configured;
    }

    /**
     * The minimum to plan a read's demand requests with, judging a full round first: tell the read to
     * {@link #touched} before asking.
     */
    public synchronized long minimum() {
        judgeIfFull();
        return minimum;
    }

    /** The stream read {@code [start, end)}: the watched reads whose run it continues reach at least its end. */
    public synchronized void touched(long start, long end) {
        for (int i = 0; i < watched; i++) {
            if (start < starts[i] + configured && end > starts[i]) {
                reached[i] = Math.max(reached[i], Math.min(end, starts[i] + configured));
            }
        }
    }

    /**
     * The read of {@code [start, end)} was planned with the demand requests {@code demand}. A read shorter than the
     * configured minimum that fetched something is watched from now on. Tell the read itself to {@link #touched}
     * before this (it is not part of its own run's evidence until now, and is counted here).
     */
    public synchronized void planned(long start, long end, List<ByteRange> demand, long objectLength) {
        long length = end - start;
        if (demand.isEmpty() || length < 1 || length >= configured || start + minimum() >= objectLength) {
            return; // served from the cache, or as long as the minimum, or one no padding could follow
        }
        judgeIfFull(); // only when another thread's read filled the round since this one asked
        starts[watched] = start;
        reached[watched] = end;
        watched++;
    }

    /** Decides a full round's outcome and starts the next round. */
    private void judgeIfFull() {
        if (watched < round) {
            return;
        }
        long[] runs = new long[round];
        for (int i = 0; i < round; i++) {
            runs[i] = reached[i] - starts[i];
        }
        Arrays.sort(runs);
        long median = runs[round / 2]; // the upper median: of an even round, the longer middle run
        minimum = Math.max(Math.min(configured, FLOOR), Math.min(configured, median));
        watched = 0;
        round = ROUND;
    }
}
