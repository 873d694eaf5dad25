package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A read that waited for bytes, on the reader's thread: how long, and on what. Its waits are split between the
 * phases the GETs it waited for went through meanwhile; {@code waitedOn} names the longest. A read served from the cache
 * without waiting records nothing.
 */
@Name(ReadWaitEvent.NAME)
@Label("Read Wait")
@Category({"Rangefetch", "Reads"})
@Description("A read that waited for bytes, and what it waited on")
@StackTrace(false)
final class ReadWaitEvent extends jdk.jfr.Event {
    static final String NAME = "rangefetch.ReadWait";

    /** Whether a recording wants this event now: reads keep what it needs only then. */
    static boolean isRecording() {
        return new ReadWaitEvent().isEnabled();
    }

    @Label("Stream")
    @Description("The stream's number within its JVM, as in Stream Opened")
    public long stream;

    @Label("Bucket")
    public String bucket;

    @Label("Key")
    public String key;

    @Label("Kind")
    @Description("streaming, positioned, or first (a read that waited for the object's version to be learned)")
    public String kind;

    @Label("Position")
    public long position;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Waited On")
    @Description("The largest part: scheduler queue, throttle place, first byte, transfer, backoff, other (in no phase"
            + " of its GETs); another stream's GET when joined")
    public String waitedOn;

    @Label("Waited")
    @Description("The read's waits, summed: the event spans its first wait to its last")
    @Timespan(Timespan.NANOSECONDS)
    public long waited;

    @Label("Queue")
    @Description("Part of the wait its GETs spent in the fetch scheduler's queue")
    @Timespan(Timespan.NANOSECONDS)
    public long queue;

    @Label("Throttle")
    @Description("Part of the wait its GETs spent waiting for a place under the bucket's throttle governor")
    @Timespan(Timespan.NANOSECONDS)
    public long throttle;

    @Label("First Byte")
    @Description("Part of the wait its GETs spent sent, before their answers began")
    @Timespan(Timespan.NANOSECONDS)
    public long firstByte;

    @Label("Transfer")
    @Description("Part of the wait its GETs spent receiving bodies")
    @Timespan(Timespan.NANOSECONDS)
    public long transfer;

    @Label("Backoff")
    @Description("Part of the wait its GETs spent waiting to retry")
    @Timespan(Timespan.NANOSECONDS)
    public long backoff;

    @Label("Joined")
    @Description("Whether it waited on a GET another stream had started")
    public boolean joined;
}
