package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A bucket's throttle governor changed how many requests it lets in flight.
 *
 * <p><b>Public because</b> {@code internal.fetch.ThrottleGovernor} records it.
 */
@Name(GovernorChangeEvent.NAME)
@Label("Throttle Limit Changed")
@Category({"Rangefetch", "Throttling"})
@Description("A bucket's throttle governor changed how many requests it lets in flight")
@StackTrace(false)
public final class GovernorChangeEvent extends jdk.jfr.Event {
    public static final String NAME = "rangefetch.GovernorChange";

    @Label("Bucket")
    public String bucket;

    @Label("Previous Limit")
    public int previousLimit;

    @Label("Limit")
    public int limit;

    @Label("In Flight")
    public int inFlight;
}
