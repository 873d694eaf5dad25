package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A loaded block left the cache to make room for another.
 *
 * <p><b>Public because</b> {@code internal.cache.BlockCache} records it.
 */
@Name(CacheEvictionEvent.NAME)
@Label("Cache Eviction")
@Category({"Rangefetch", "Cache"})
@Description("A loaded block left the cache to make room for another")
@StackTrace(false)
public final class CacheEvictionEvent extends jdk.jfr.Event {
    public static final String NAME = "rangefetch.CacheEviction";

    @Label("Bucket")
    public String bucket;

    @Label("Key")
    public String key;

    @Label("Range Start")
    public long rangeStart;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Queue")
    @Description("passed (a sequential reader moved past it), unread prefetch, or used")
    public String queue;

    @Label("For Prefetch")
    @Description("Whether the room was made for a prefetch")
    public boolean forPrefetch;
}
