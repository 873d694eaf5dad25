package io.rangefetch.internal.plan;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import java.util.ArrayList;
import java.util.List;

/**
 * Watches a stream's positioned reads for a forward stride, reads of one length each the same distance after the
 * last (the streams of an ORC stripe's selected columns, fixed-size records, a file read in order by positioned
 * reads), and predicts the reads to come so they can be prefetched. A stride prefetcher, as in a CPU: positioned
 * reads otherwise each wait a first-byte latency, one after another.
 *
 * <p><b>When.</b> After {@code sequentialReads} equal strides in a row (with the default of 2, on the third read).
 * Any other read (another length, a stride that differs, a read backwards or over the last one) forgets the
 * pattern; the same read again (a retry on a new version) changes nothing. Never for {@link AccessHint#RANDOM}
 * or with prefetching off ({@code prefetchMaxSize} 0).
 *
 * <p><b>How much.</b> Like a sequential stream's window: the predicted reads within a span past the read (gaps
 * included, so the bytes fetched are fewer) of {@code prefetchInitialSize}, growing to the span the pattern has
 * covered so far, at most {@code prefetchMaxSize}; refilled once half of it is behind the reader. A reader that
 * stops leaves at most one window behind, which is never more than it has read across (or the initial window).
 * Never past the object's end or the caller's split end. Only the predicted reads' bytes are asked for: the gaps
 * between them, which the reader skips, are not fetched for it (the caller's coalescing may still bridge a narrow
 * one).
 *
 * <p>Pure and not thread-safe: the caller serializes {@link #observe}.
 *
 * <p><b>Public because</b> {@code internal.read.Predictions} keeps one per stream.
 */
public final class StridePattern {
    private final PlannerSettings settings;
    private long lastPosition = -1;
    private long lastLength;
    private long stride;
    private int strides;
    /** Where the first read of the current run of equal strides started. */
    private long patternStart;
    /** Whether a window of predicted reads is open: the pattern holds and has been acted on. */
    private boolean predicting;
    /** Where the first predicted read not yet handed out starts. */
    private long nextPredicted;
    /** Bytes of predicted reads the reader left behind when it last broke the pattern, not yet taken. */
    private long abandoned;

    public StridePattern(PlannerSettings settings) {
        this.settings = requireNonNull(settings, "settings is null");
    }

    /**
     * Takes one positioned read of {@code length} bytes at {@code position}; returns the predicted reads to
     * prefetch now, in order, disjoint and past this read (empty most of the time).
     */
    public List<ByteRange> observe(long position, long length, long objectLength, long prefetchEnd, AccessHint hint) {
        if (position == lastPosition && length == lastLength) {
            return List.of(); // the same read again: a retry, not a step
        }
        long step = position - lastPosition;
        boolean forward = lastPosition >= 0 && length == lastLength && step >= length;
        if (forward && step == stride) {
            strides = strides == Integer.MAX_VALUE ? strides : strides + 1;
        } else {
            abandoned += pending();
            stride = forward ? step : 0;
            strides = forward ? 1 : 0;
            patternStart = forward ? lastPosition : position;
            predicting = false;
        }
        lastPosition = position;
        lastLength = length;
        if (strides < settings.sequentialReads()
                || hint == AccessHint.RANDOM
                || settings.prefetchMaxSize() == 0
                || length < 1) {
            return List.of();
        }
        long end = position + length;
        if (!predicting) {
            predicting = true;
            nextPredicted = position + stride;
        }
        nextPredicted = Math.max(nextPredicted, position + stride);
        long window =
                Math.min(settings.prefetchMaxSize(), Math.max(settings.prefetchInitialSize(), end - patternStart));
        if (nextPredicted - end > window / 2) {
            return List.of(); // more than half the window still ahead: refill later, in one batch
        }
        long limit = Math.min(objectLength, prefetchEnd);
        long horizon = Math.min(limit, end + window);
        List<ByteRange> predicted = new ArrayList<>();
        while (nextPredicted < horizon) {
            predicted.add(new ByteRange(nextPredicted, Math.min(limit, nextPredicted + length)));
            nextPredicted += stride;
        }
        return predicted;
    }

    /**
     * The bytes of predicted reads handed out that the reader has left behind by breaking the pattern since the
     * last call; then forgets them. Counted as if each was as long as the reads the pattern was made of.
     */
    public long takeAbandoned() {
        long taken = abandoned;
        abandoned = 0;
        return taken;
    }

    /** The bytes of predicted reads handed out past the last read, which a reader that stops now leaves behind. */
    public long pending() {
        if (!predicting || stride <= 0) {
            return 0;
        }
        long firstUnread = lastPosition + stride;
        long reads = nextPredicted > firstUnread ? (nextPredicted - firstUnread + stride - 1) / stride : 0;
        return reads * lastLength;
    }
}
