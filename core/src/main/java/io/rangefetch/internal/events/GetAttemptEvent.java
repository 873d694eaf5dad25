package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One GET sent to S3: each attempt and each hedge is one event, from the moment it went out until its body was read,
 * cut or failed. Committed on the thread that ended it (an exchange or fetch thread, not the reader's).
 */
@Name(GetAttemptEvent.NAME)
@Label("GET Attempt")
@Category({"Rangefetch", "Requests"})
@Description("One GET sent to S3, from the send until its body was read, cut or failed")
@StackTrace(false)
final class GetAttemptEvent extends jdk.jfr.Event {
    static final String NAME = "rangefetch.GetAttempt";

    @Label("Bucket")
    public String bucket;

    @Label("Key")
    public String key;

    @Label("Range")
    @Description("The Range header: bytes=first-last (inclusive), or bytes=-N for the last N bytes")
    public String range;

    @Label("Requested")
    @DataAmount
    public long requested;

    @Label("Received")
    @Description("Body bytes received by this attempt")
    @DataAmount
    public long received;

    @Label("First Byte")
    @Description("From the send until the answer's head arrived; -1 when none arrived")
    @Timespan(Timespan.NANOSECONDS)
    public long firstByte;

    @Label("Attempt")
    @Description("1 for the first attempt of the request, 2 for its first retry or resume, and so on")
    public int attempt;

    @Label("Hedge")
    @Description("Sent a second time because the first send was slow to answer")
    public boolean hedge;

    @Label("Cause")
    @Description("Why it was sent: demand, vectored, sequential prefetch, stride prefetch, format prediction,"
            + " caller prefetch, small object, footer or first read")
    public String cause;

    @Label("Outcome")
    @Description("complete, hedge lost, abandoned, cancelled, throttled, changed, timed out, stalled or failed")
    public String outcome;

    @Label("Status")
    @Description("The HTTP status answered, or 0 when no answer came")
    public int status;
}
