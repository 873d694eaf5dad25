package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A stream was closed; its duration is the time it was open.
 *
 * <p><b>Public because</b> {@code internal.read.ObjectReader} records it.
 */
@Name(StreamClosedEvent.NAME)
@Label("Stream Closed")
@Category({"Rangefetch", "Streams"})
@Description("A stream was closed; its duration is the time it was open")
@StackTrace(false)
public final class StreamClosedEvent extends jdk.jfr.Event {
    public static final String NAME = "rangefetch.StreamClosed";

    @Label("Stream")
    public long stream;

    @Label("Bucket")
    public String bucket;

    @Label("Key")
    public String key;

    @Label("Bytes Read")
    @Description("Bytes the stream handed to its caller")
    @DataAmount
    public long bytesRead;

    @Label("Reads")
    public long reads;

    @Label("Reads Served From Cache")
    public long cacheHits;
}
