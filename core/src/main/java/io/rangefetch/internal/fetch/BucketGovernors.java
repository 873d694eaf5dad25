package io.rangefetch.internal.fetch;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * One {@link ThrottleGovernor} per bucket, made when a bucket is first asked for and kept for the factory's
 * life (a factory reads from a handful of buckets; S3 throttles per prefix within one, and a bucket-wide limit
 * is the cautious reading of that). When throttling is off there is no governor: {@link #forBucket} answers
 * {@code null}. Thread-safe.
 */
public final class BucketGovernors {
    private final ThrottleSettings settings;
    private final LongSupplier nanoClock;
    private final Map<String, ThrottleGovernor> byBucket = new ConcurrentHashMap<>();

    public BucketGovernors(ThrottleSettings settings, LongSupplier nanoClock) {
        this.settings = requireNonNull(settings, "settings is null");
        this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    }

    public static BucketGovernors off() {
        return new BucketGovernors(ThrottleSettings.off(), System::nanoTime);
    }

    /** The bucket's governor, or {@code null} when throttling is off. */
    public ThrottleGovernor forBucket(String bucket) {
        if (!settings.enabled()) {
            return null;
        }
        return byBucket.computeIfAbsent(bucket, name -> new ThrottleGovernor(name, settings, nanoClock));
    }

    /** The bucket's limit now; -1 when no governor limits it (off, or no request sent to it yet). */
    public int limit(String bucket) {
        ThrottleGovernor governor = byBucket.get(bucket);
        return governor == null ? -1 : governor.limit();
    }

    /** The lowest limit now among the buckets' governors; -1 when there is none. */
    public int lowestLimit() {
        return byBucket.values().stream().mapToInt(ThrottleGovernor::limit).min().orElse(-1);
    }
}
