package io.rangefetch;

/**
 * A snapshot of what a stream, or all of a factory's streams, cost and served.
 *
 * @param getRequests GET requests sent (each part of a split read counts)
 * @param headRequests HEAD requests sent
 * @param bytesFetched body bytes received from S3
 * @param bytesServed bytes handed to readers
 * @param cacheHits reads served without sending a request of their own
 * @param cacheMisses reads that had to send a request
 * @param prefetchedBytes bytes fetched ahead of any reader
 * @param prefetchedBytesUnread prefetched bytes that left the cache (evicted, invalidated, closed) never read
 * @param retries requests sent again after a failure that may pass (each retry counts, resumed or not)
 * @param resumes retries that asked only for the rest of a body that broke midway
 * @param throttledResponses answers of 503 (SlowDown): each lowers its bucket's governor limit
 * @param throttleLimit the lowest limit now of the throttle governors of the buckets read (for a stream, its
 *     bucket's); -1 when no governor limits them (throttling off, or nothing sent yet)
 * @param hedgesSent GETs sent a second time because their answer was slow to begin (counted in getRequests too)
 * @param hedgesWon hedges whose answer came first
 * @param listRequests ListObjectsV2 requests sent by {@link StreamFactory#list} (each retry counts); a stream
 *     sends none, so its snapshot says 0
 */
public record StreamStatistics(
        long getRequests,
        long headRequests,
        long bytesFetched,
        long bytesServed,
        long cacheHits,
        long cacheMisses,
        long prefetchedBytes,
        long prefetchedBytesUnread,
        long retries,
        long resumes,
        long throttledResponses,
        int throttleLimit,
        long hedgesSent,
        long hedgesWon,
        long listRequests) {

    /** A snapshot with no listing requests: a stream's. */
    public StreamStatistics(
            long getRequests,
            long headRequests,
            long bytesFetched,
            long bytesServed,
            long cacheHits,
            long cacheMisses,
            long prefetchedBytes,
            long prefetchedBytesUnread,
            long retries,
            long resumes,
            long throttledResponses,
            int throttleLimit,
            long hedgesSent,
            long hedgesWon) {
        this(
                getRequests,
                headRequests,
                bytesFetched,
                bytesServed,
                cacheHits,
                cacheMisses,
                prefetchedBytes,
                prefetchedBytesUnread,
                retries,
                resumes,
                throttledResponses,
                throttleLimit,
                hedgesSent,
                hedgesWon,
                0);
    }

    /**
     * These figures in one line, as a factory logs them when it closes: requests (with hedges, retries and 503s),
     * bytes fetched and served, the share of reads served from the cache, and how much of what was prefetched was
     * never read. Names no bucket or key.
     */
    public String summary() {
        long reads = cacheHits + cacheMisses;
        return getRequests + " GETs (" + hedgesSent + " hedges, " + retries + " retries, " + resumes + " resumes, "
                + throttledResponses + " answered 503), " + headRequests + " HEADs, " + listRequests + " LISTs; "
                + mebibytes(bytesFetched) + " fetched, " + mebibytes(bytesServed) + " served; "
                + cacheHits + " of " + reads + " reads from the cache (" + percent(cacheHits, reads) + "); "
                + mebibytes(prefetchedBytes) + " prefetched, " + mebibytes(prefetchedBytesUnread)
                + " of it never read ("
                + percent(prefetchedBytesUnread, prefetchedBytes) + ")";
    }

    private static String mebibytes(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "-" : String.format(java.util.Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }

    /**
     * The sum of this snapshot's counts and {@code later}'s (two streams', two factories'); the throttle limit is
     * {@code later}'s, the limit now.
     */
    public StreamStatistics plus(StreamStatistics later) {
        return new StreamStatistics(
                getRequests + later.getRequests,
                headRequests + later.headRequests,
                bytesFetched + later.bytesFetched,
                bytesServed + later.bytesServed,
                cacheHits + later.cacheHits,
                cacheMisses + later.cacheMisses,
                prefetchedBytes + later.prefetchedBytes,
                prefetchedBytesUnread + later.prefetchedBytesUnread,
                retries + later.retries,
                resumes + later.resumes,
                throttledResponses + later.throttledResponses,
                later.throttleLimit,
                hedgesSent + later.hedgesSent,
                hedgesWon + later.hedgesWon,
                listRequests + later.listRequests);
    }

    /** This snapshot with {@code limit} as its throttle limit. */
    StreamStatistics withThrottleLimit(int limit) {
        return new StreamStatistics(
                getRequests,
                headRequests,
                bytesFetched,
                bytesServed,
                cacheHits,
                cacheMisses,
                prefetchedBytes,
                prefetchedBytesUnread,
                retries,
                resumes,
                throttledResponses,
                limit,
                hedgesSent,
                hedgesWon,
                listRequests);
    }

    StreamStatistics withListRequests(long count) {
        return new StreamStatistics(
                getRequests,
                headRequests,
                bytesFetched,
                bytesServed,
                cacheHits,
                cacheMisses,
                prefetchedBytes,
                prefetchedBytesUnread,
                retries,
                resumes,
                throttledResponses,
                throttleLimit,
                hedgesSent,
                hedgesWon,
                count);
    }
}
