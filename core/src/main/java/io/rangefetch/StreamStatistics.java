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
        long resumes) {}
