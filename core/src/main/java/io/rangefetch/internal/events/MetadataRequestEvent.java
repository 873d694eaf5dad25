package io.rangefetch.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One HEAD or LIST sent to S3 (each attempt one event), from the send until its answer arrived or it failed.
 */
@Name(MetadataRequestEvent.NAME)
@Label("HEAD or LIST")
@Category({"Rangefetch", "Requests"})
@Description("One HEAD or ListObjectsV2 request sent to S3")
@StackTrace(false)
final class MetadataRequestEvent extends jdk.jfr.Event {
    static final String NAME = "rangefetch.MetadataRequest";

    @Label("Method")
    @Description("HEAD or LIST")
    public String method;

    @Label("Bucket")
    public String bucket;

    @Label("Key")
    @Description("The object's key, or the listing's prefix")
    public String key;

    @Label("Attempt")
    public int attempt;

    @Label("Outcome")
    @Description("complete, cancelled, throttled, timed out or failed")
    public String outcome;

    @Label("Status")
    public int status;
}
