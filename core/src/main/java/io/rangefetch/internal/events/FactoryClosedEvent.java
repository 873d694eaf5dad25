package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A stream factory was closed, with what its streams cost and served; its duration is its life.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} records it.
 */
@Name(FactoryClosedEvent.NAME)
@Label("Factory Closed")
@Category({"Rangefetch", "Factories"})
@Description("A stream factory was closed, with what its streams cost and served; its duration is its life")
@StackTrace(false)
public final class FactoryClosedEvent extends jdk.jfr.Event {
    public static final String NAME = "rangefetch.FactoryClosed";

    @Label("Factory")
    public long factory;

    @Label("Summary")
    public String summary;

    @Label("GETs")
    public long gets;

    @Label("Bytes Fetched")
    @DataAmount
    public long bytesFetched;

    @Label("Bytes Served")
    @DataAmount
    public long bytesServed;

    @Label("Reads Served From Cache")
    public long cacheHits;

    @Label("Reads That Fetched")
    public long cacheMisses;

    @Label("Prefetched Never Read")
    @DataAmount
    public long prefetchedUnread;

    @Label("Retries")
    public long retries;

    @Label("Throttled")
    @Description("503 answers")
    public long throttled;

    @Label("Cache Peak")
    @DataAmount
    public long cachePeak;
}
