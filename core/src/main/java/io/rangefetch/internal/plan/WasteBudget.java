package io.rangefetch.internal.plan;

/**
 * What a stream's predictions have wasted, and whether they may predict on. A prediction (the sequential ramp's
 * window, the stride pattern's reads to come) fetches bytes before the reader asks; the bytes the reader then
 * leaves behind (it jumps out of a window, it breaks a stride, it closes with a window ahead) are its waste.
 *
 * <p><b>The bound.</b> Predictions back off while the waste passes half the bytes the reader has read plus an
 * allowance (one initial prefetch window, the price of trying once), and come back when the reader has read enough
 * for the bound to hold again. So over a stream's life, bytes fetched stay within 1.5× the bytes read, plus the
 * allowance and the one window that was in flight when predictions backed off. A pattern the predictions fit
 * (a scan, an ORC stripe's columns) wastes at most its last window and never backs off; one they do not fit (two
 * reads in a row, then a jump, again and again) backs off after its first wasted windows.
 *
 * <p><b>Carried waste.</b> A stream can start with waste carried from the streams of the same file or table before
 * it ({@link WasteMemory}): one that opens where predictions have just failed starts backed off, and predicts once it
 * has read enough to pay for what they wasted.
 *
 * <p>Thread-safe: positioned reads run concurrently on one stream. One monitor, held only to add and compare.
 *
 * <p><b>Public because</b> {@code internal.read.Predictions} keeps one per stream.
 */
public final class WasteBudget {
    /** Waste allowed per byte read: fetched stays within {@code 1 + RATIO} times read. */
    public static final double RATIO = 0.5;

    private final long allowance;
    private long wasted;

    /**
     * @param allowance waste allowed before any byte is read: one initial prefetch window
     * @param carried waste carried from the file's or the table's streams before this one
     */
    public WasteBudget(long allowance, long carried) {
        if (allowance < 0 || carried < 0) {
            throw new IllegalArgumentException(
                    "Need allowance >= 0 and carried >= 0, got " + allowance + " and " + carried);
        }
        this.allowance = allowance;
        this.wasted = carried;
    }

    /** A prediction's bytes the reader left behind. */
    public synchronized void wasted(long bytes) {
        if (bytes > 0) {
            wasted = saturatedAdd(wasted, bytes);
        }
    }

    public synchronized long wasted() {
        return wasted;
    }

    /** Whether predictions may fetch ahead, now that the reader has read {@code read} bytes. */
    public synchronized boolean allowsPrediction(long read) {
        return wasted <= RATIO * read + allowance;
    }

    /**
     * What the next stream of the file or table carries after this one read {@code read} bytes: nothing if its
     * predictions were within the bound at the end, else its waste past the ratio, so the next stream starts backed
     * off and predicts once it has read enough to pay for it (the allowance is not given twice).
     */
    public synchronized long excess(long read) {
        return wasted <= RATIO * read + allowance ? 0 : wasted - (long) (RATIO * read);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
