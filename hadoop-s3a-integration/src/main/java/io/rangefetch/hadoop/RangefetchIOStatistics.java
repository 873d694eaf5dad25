package io.rangefetch.hadoop;

import static java.util.Objects.requireNonNull;

import io.rangefetch.StreamStatistics;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.fs.s3a.statistics.S3AInputStreamStatistics;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.MeanStatistic;
import org.apache.hadoop.fs.statistics.StoreStatisticNames;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/**
 * A stream's IOStatistics: S3A's stream statistics (bytes read, read and seek operations, vectored reads,
 * unbuffer calls, exceptions, version mismatches), live, plus Rangefetch's own counts of the stream under the
 * names {@code rangefetch_*} ({@link #counters(StreamStatistics)}), read when asked, so
 * {@code IOStatisticsLogging} and Spark's task metrics see both.
 *
 * <p>S3A's store knows a fixed set of names and ignores others, and it is what reaches the file system's
 * statistics when the stream closes, so {@link #publish} also adds Rangefetch's GETs, bytes received, cache hits
 * and prefetched bytes to the S3A names that mean the same, where the running Hadoop has them
 * ({@code stream_read_opened}, {@code action_http_get_request}, {@code stream_read_total_bytes},
 * {@code stream_read_cache_hit} and {@code stream_read_prefetched_bytes} from 3.4.3). Not thread-safe by itself:
 * its stream publishes under its own lock.
 */
final class RangefetchIOStatistics implements IOStatistics {
    private static final StreamStatistics NONE = new StreamStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);

    private final IOStatistics s3a;
    private final Supplier<StreamStatistics> rangefetch;
    private StreamStatistics published = NONE;

    RangefetchIOStatistics(IOStatistics s3a, Supplier<StreamStatistics> rangefetch) {
        this.s3a = requireNonNull(s3a, "s3a is null");
        this.rangefetch = requireNonNull(rangefetch, "rangefetch is null");
    }

    static StreamStatistics none() {
        return NONE;
    }

    /** Rangefetch's counts under their IOStatistics names. */
    static Map<String, Long> counters(StreamStatistics statistics) {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("rangefetch_get_requests", statistics.getRequests());
        counters.put("rangefetch_head_requests", statistics.headRequests());
        counters.put("rangefetch_bytes_fetched", statistics.bytesFetched());
        counters.put("rangefetch_bytes_served", statistics.bytesServed());
        counters.put("rangefetch_cache_hits", statistics.cacheHits());
        counters.put("rangefetch_cache_misses", statistics.cacheMisses());
        counters.put("rangefetch_prefetched_bytes", statistics.prefetchedBytes());
        counters.put("rangefetch_prefetched_bytes_unread", statistics.prefetchedBytesUnread());
        counters.put("rangefetch_retries", statistics.retries());
        counters.put("rangefetch_resumes", statistics.resumes());
        counters.put("rangefetch_throttled_responses", statistics.throttledResponses());
        counters.put("rangefetch_hedges_sent", statistics.hedgesSent());
        counters.put("rangefetch_hedges_won", statistics.hedgesWon());
        return counters;
    }

    /** Adds what Rangefetch counted since the last call to S3A's names for the same things. */
    void publish(S3AInputStreamStatistics streamStatistics) {
        StreamStatistics now = rangefetch.get();
        if (streamStatistics.getIOStatistics() instanceof IOStatisticsStore store) {
            long gets = now.getRequests() - published.getRequests();
            store.incrementCounter(StreamStatisticNames.STREAM_READ_OPENED, gets);
            store.incrementCounter(StoreStatisticNames.ACTION_HTTP_GET_REQUEST, gets);
            store.incrementCounter(
                    StreamStatisticNames.STREAM_READ_TOTAL_BYTES, now.bytesFetched() - published.bytesFetched());
            // names of 3.4.3 and later, spelled out: 3.4.2's StreamStatisticNames lacks the constants, and its
            // store ignores the names
            store.incrementCounter("stream_read_cache_hit", now.cacheHits() - published.cacheHits());
            store.incrementCounter("stream_read_prefetched_bytes", now.prefetchedBytes() - published.prefetchedBytes());
        }
        published = now;
    }

    /** Counts a read that failed because the object changed, as S3A's change tracker does. */
    static void versionMismatch(S3AInputStreamStatistics streamStatistics) {
        if (streamStatistics.getIOStatistics() instanceof IOStatisticsStore store) {
            store.incrementCounter(StreamStatisticNames.STREAM_READ_VERSION_MISMATCHES);
        }
    }

    /** Rangefetch's counts alone, as IOStatistics (to merge into the thread's statistics at close). */
    IOStatistics rangefetchOnly() {
        Map<String, Long> counters = counters(rangefetch.get());
        IOStatisticsStore store = IOStatisticsBinding.iostatisticsStore()
                .withCounters(counters.keySet().toArray(String[]::new))
                .build();
        counters.forEach(store::setCounter);
        return store;
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> counters = new LinkedHashMap<>(s3a.counters());
        counters.putAll(counters(rangefetch.get()));
        return counters;
    }

    @Override
    public Map<String, Long> gauges() {
        return s3a.gauges();
    }

    @Override
    public Map<String, Long> minimums() {
        return s3a.minimums();
    }

    @Override
    public Map<String, Long> maximums() {
        return s3a.maximums();
    }

    @Override
    public Map<String, MeanStatistic> meanStatistics() {
        return s3a.meanStatistics();
    }

    @Override
    public String toString() {
        return counters().toString();
    }
}
