package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A stream was opened on an object.
 *
 * <p><b>Public because</b> {@code internal.read.ObjectReader} records it.
 */
@Name(StreamOpenedEvent.NAME)
@Label("Stream Opened")
@Category({"Rangefetch", "Streams"})
@Description("A stream was opened on an object")
@StackTrace(false)
public final class StreamOpenedEvent extends jdk.jfr.Event {
    public static final String NAME = "rangefetch.StreamOpened";

    @Label("Stream")
    @Description("The stream's number within its JVM")
    public long stream;

    @Label("Bucket")
    public String bucket;

    @Label("Key")
    public String key;

    @Label("Length")
    @Description("The object's length when the caller gave it, or -1")
    @DataAmount
    public long length;
}
