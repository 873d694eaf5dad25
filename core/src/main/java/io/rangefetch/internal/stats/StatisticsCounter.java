package io.rangefetch.internal.stats;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters for one stream or one factory. A stream's counter forwards every increment to its factory's, so
 * the factory's totals never need a pass over its streams. Thread-safe.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} keeps the root,
 * {@code io.rangefetch.SeekableS3InputStream} snapshots a stream's, and {@code internal.cache} and
 * {@code internal.read} count into it.
 */
public final class StatisticsCounter {
    private final StatisticsCounter parent;
    private final LongAdder getRequests = new LongAdder();
    private final LongAdder headRequests = new LongAdder();
    private final LongAdder listRequests = new LongAdder();
    private final LongAdder bytesFetched = new LongAdder();
    private final LongAdder bytesServed = new LongAdder();
    private final LongAdder cacheHits = new LongAdder();
    private final LongAdder cacheMisses = new LongAdder();
    private final LongAdder prefetchedBytes = new LongAdder();
    private final LongAdder prefetchedBytesUnread = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder resumes = new LongAdder();
    private final LongAdder throttled = new LongAdder();
    private final LongAdder hedgesSent = new LongAdder();
    private final LongAdder hedgesWon = new LongAdder();

    public StatisticsCounter(StatisticsCounter parent) {
        this.parent = parent;
    }

    public static StatisticsCounter root() {
        return new StatisticsCounter(null);
    }

    public StatisticsCounter child() {
        return new StatisticsCounter(this);
    }

    public void getSent(long bodyBytes, boolean prefetch) {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.getRequests.increment();
            c.bytesFetched.add(bodyBytes);
            if (prefetch) {
                c.prefetchedBytes.add(bodyBytes);
            }
        }
    }

    public void failedGetSent() {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.getRequests.increment();
        }
    }

    public void headSent() {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.headRequests.increment();
        }
    }

    /** A ListObjectsV2 request is sent (each retry counts). */
    public void listSent() {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.listRequests.increment();
        }
    }

    public void served(long bytes, boolean hit) {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.bytesServed.add(bytes);
            (hit ? c.cacheHits : c.cacheMisses).increment();
        }
    }

    public void prefetchedUnread(long bytes) {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.prefetchedBytesUnread.add(bytes);
        }
    }

    /** A request is sent again after a failure that may pass. */
    public void retried() {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.retries.increment();
        }
    }

    /** A GET whose body broke asks for the rest of it. */
    public void resumed() {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.resumes.increment();
        }
    }

    /** S3 answered 503: slow down. */
    public void throttled() {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.throttled.increment();
        }
    }

    /** A GET slow to begin is sent a second time (a request like any other, so it counts as one). */
    public void hedgeSent() {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.hedgesSent.increment();
            c.getRequests.increment();
        }
    }

    /** The second send's answer came first. */
    public void hedgeWon() {
        for (StatisticsCounter c = this; c != null; c = c.parent) {
            c.hedgesWon.increment();
        }
    }

    public long throttledResponses() {
        return throttled.sum();
    }

    public long hedgesSent() {
        return hedgesSent.sum();
    }

    public long hedgesWon() {
        return hedgesWon.sum();
    }

    public long retries() {
        return retries.sum();
    }

    public long resumes() {
        return resumes.sum();
    }

    public long getRequests() {
        return getRequests.sum();
    }

    public long headRequests() {
        return headRequests.sum();
    }

    public long listRequests() {
        return listRequests.sum();
    }

    public long bytesFetched() {
        return bytesFetched.sum();
    }

    public long bytesServed() {
        return bytesServed.sum();
    }

    public long cacheHits() {
        return cacheHits.sum();
    }

    public long cacheMisses() {
        return cacheMisses.sum();
    }

    public long prefetchedBytes() {
        return prefetchedBytes.sum();
    }

    public long prefetchedBytesUnread() {
        return prefetchedBytesUnread.sum();
    }
}
