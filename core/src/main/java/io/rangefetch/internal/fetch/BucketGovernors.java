package io.rangefetch.internal.fetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.time.TimeSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link ThrottleGovernor} per bucket, made when a bucket is first asked for and kept for the factory's
 * life (a factory reads from a handful of buckets; S3 throttles per prefix within one, and a bucket-wide limit
 * is the cautious reading of that). When throttling is off there is no governor: {@link #forBucket} answers
 * {@code null}. Thread-safe.
 *
 * <p><b>Public because</b> {@code internal.read.ReadEngine} makes it, and {@code internal.read.RetryingSender} takes
 * each bucket's governor from it.
 */
public final class BucketGovernors {
    private final ThrottleSettings settings;
    private final TimeSource time; // null when off: no governor is ever made
    private final Map<String, ThrottleGovernor> byBucket = new ConcurrentHashMap<>();

    /** @param time what the governors measure answers with and end their waits through */
    public BucketGovernors(ThrottleSettings settings, TimeSource time) {
        this.settings = requireNonNull(settings, "settings is null");
        this.time = requireNonNull(time, "time is null");
    }

    private BucketGovernors() {
        this.settings = ThrottleSettings.off();
        this.time = null;
    }

    public static BucketGovernors off() {
        return new BucketGovernors();
    }

    /** The bucket's governor, or {@code null} when throttling is off. */
    public ThrottleGovernor forBucket(String bucket) {
        if (!settings.enabled()) {
            return null;
        }
        return byBucket.computeIfAbsent(bucket, name -> new ThrottleGovernor(name, settings, time));
    }

    /** The bucket's limit now; -1 when no governor limits it (off, or no request sent to it yet). */
    public int limit(String bucket) {
        ThrottleGovernor governor = byBucket.get(bucket);
        return governor == null ? -1 : governor.limit();
    }

    /** The lowest limit now among the buckets' governors; -1 when there is none. */
    public int lowestLimit() {
        return byBucket.values().stream()
                .mapToInt(ThrottleGovernor::limit)
                .min()
                .orElse(-1);
    }
}
