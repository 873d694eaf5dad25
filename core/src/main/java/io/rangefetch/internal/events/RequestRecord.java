package io.rangefetch.internal.events;

import io.rangefetch.client.HttpStatusException;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.Event;

/**
 * The event of one request sent to S3 while it is under way: a {@link GetAttemptEvent} or a {@link
 * MetadataRequestEvent}, begun when the request goes out and committed once, by whoever sees it end (the exchange
 * thread when it fails before an answer, the fetch thread when its body is read, a discard when its answer is cut).
 * A GET's end is also told to the JVM's {@link Telemetry} (its metrics), recording or not; a HEAD or LIST no
 * recording wants is {@link #NONE}, which records nothing.
 *
 * <p>Thread-safe: the fields are written before the event is committed, and only the first end commits it.
 *
 * <p><b>Public because</b> {@code internal.read} ({@code AttemptSender}, {@code RetryingSender}) records each request
 * it sends with it.
 */
public final class RequestRecord {
    /** Records nothing: for requests no metric or event wants. */
    public static final RequestRecord NONE = new RequestRecord(null, null, null, null);

    // null for NONE, and for a request no recording wants: its end still reaches the metrics
    private final Event event;
    private final GetAttemptEvent get;
    // a GET's fields, kept for its metrics and its hedge; null for a HEAD or LIST
    private final GetFields fields;
    private final MetadataRequestEvent metadata;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile long sentNanos;
    private volatile long firstByteNanos = -1;
    // the status of the answer whose head arrived: a ranged GET is answered 206 Partial Content, a HEAD or LIST 200
    private volatile int answeredStatus;

    private record GetFields(
            String bucket, String key, String range, long requested, int attempt, boolean hedge, FetchCause cause) {}

    private RequestRecord(Event event, GetAttemptEvent get, GetFields fields, MetadataRequestEvent metadata) {
        this.event = event;
        this.get = get;
        this.fields = fields;
        this.metadata = metadata;
    }

    /** A GET attempt about to be sent: always counted in the metrics, an event while a recording wants it. */
    public static RequestRecord get(
            String bucket, String key, String range, long requested, int attempt, boolean hedge, FetchCause cause) {
        GetFields fields = new GetFields(bucket, key, range, requested, attempt, hedge, cause);
        GetAttemptEvent event = new GetAttemptEvent();
        if (!event.isEnabled()) {
            return new RequestRecord(null, null, fields, null);
        }
        event.bucket = bucket;
        event.key = key;
        event.range = range;
        event.requested = requested;
        event.attempt = attempt;
        event.hedge = hedge;
        event.cause = cause.label();
        event.firstByte = -1;
        return new RequestRecord(event, event, fields, null);
    }

    /** A HEAD or LIST about to be sent; {@link #NONE} while no recording wants it. */
    public static RequestRecord metadata(String method, String bucket, String key, int attempt) {
        MetadataRequestEvent event = new MetadataRequestEvent();
        if (!event.isEnabled()) {
            return NONE;
        }
        event.method = method;
        event.bucket = bucket;
        event.key = key;
        event.attempt = attempt;
        return new RequestRecord(event, null, null, event);
    }

    /** A record for a second send of the same GET (a hedge): the same fields, its own times. */
    public RequestRecord hedge() {
        if (fields == null) {
            return NONE; // HEADs and LISTs are never hedged, and NONE stays NONE
        }
        return get(fields.bucket, fields.key, fields.range, fields.requested, fields.attempt, true, fields.cause);
    }

    /** The request goes out now. */
    public void sent() {
        sentNanos = System.nanoTime();
        if (event != null) {
            event.begin();
        }
    }

    /** Its answer's head arrived now. */
    public void answered() {
        firstByteNanos = System.nanoTime() - sentNanos;
        answeredStatus = fields != null ? 206 : 200;
    }

    /** It ended well, {@code received} body bytes read. */
    public void completed(long received) {
        ended(GetOutcome.COMPLETE, 0, received);
    }

    /** It ended with {@code failure}, {@code received} body bytes read first. */
    public void failed(Throwable failure, boolean aborted, long received) {
        int status = failure instanceof HttpStatusException http ? http.statusCode() : 0;
        ended(outcomeOf(failure, aborted), status, received);
    }

    /** Its body stopped arriving for longer than the between-bytes timeout. */
    public void stalled(long received) {
        ended(GetOutcome.STALLED, 0, received);
    }

    /** Its answer was cut: {@code outcome} says why ({@link GetOutcome#HEDGE_LOST}, {@link GetOutcome#ABANDONED}). */
    public void cut(GetOutcome outcome) {
        ended(outcome, 0, 0);
    }

    private void ended(GetOutcome outcome, int status, long received) {
        if ((event == null && fields == null) || !ended.compareAndSet(false, true)) {
            return;
        }
        if (status == 0) {
            status = answeredStatus;
        }
        if (fields != null) {
            long duration = sentNanos == 0 ? 0 : System.nanoTime() - sentNanos;
            Telemetry.jvm()
                    .getEnded(new Telemetry.GetSample(
                            fields.cause, outcome, fields.requested, received, firstByteNanos, duration));
        }
        if (event == null) {
            return;
        }
        event.end();
        if (!event.shouldCommit()) {
            return;
        }
        if (get != null) {
            get.outcome = outcome.label();
            get.status = status;
            get.received = received;
            get.firstByte = firstByteNanos;
        } else {
            metadata.outcome = outcome.label();
            metadata.status = status;
        }
        event.commit();
    }

    private static GetOutcome outcomeOf(Throwable failure, boolean aborted) {
        if (aborted) {
            return GetOutcome.CANCELLED;
        }
        if (failure instanceof HttpStatusException http) {
            return switch (http.statusCode()) {
                case 503 -> GetOutcome.THROTTLED;
                case 412 -> GetOutcome.CHANGED;
                default -> GetOutcome.FAILED;
            };
        }
        if (failure instanceof SocketTimeoutException) {
            return GetOutcome.TIMED_OUT;
        }
        return GetOutcome.FAILED;
    }
}
