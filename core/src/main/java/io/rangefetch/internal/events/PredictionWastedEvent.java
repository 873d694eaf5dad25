package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Prefetched bytes that left the cache without a reader reading them.
 *
 * <p><b>Public because</b> {@code internal.cache.BlockCache} records it.
 */
@Name(PredictionWastedEvent.NAME)
@Label("Prediction Wasted")
@Category({"Rangefetch", "Cache"})
@Description("Prefetched bytes that left the cache without a reader reading them")
@StackTrace(false)
public final class PredictionWastedEvent extends jdk.jfr.Event {
    public static final String NAME = "rangefetch.PredictionWasted";

    @Label("Bucket")
    public String bucket;

    @Label("Key")
    public String key;

    @Label("Range Start")
    public long rangeStart;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Cause")
    @Description(
            "Why they were fetched: sequential prefetch, stride prefetch, format prediction, caller prefetch or footer")
    public String cause;

    @Label("Why")
    @Description("evicted (the budget needed room), invalidated (a newer version), cleared (the factory closed),"
            + " orphaned (dropped while in flight)")
    public String why;
}
