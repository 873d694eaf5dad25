package io.rangefetch.internal.events;

import io.rangefetch.client.HttpStatusException;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.Event;

/**
 * The event of one request sent to S3 while it is under way: a {@link GetAttemptEvent} or a {@link
 * MetadataRequestEvent}, begun when the request goes out and committed once, by whoever sees it end (the exchange
 * thread when it fails before an answer, the fetch thread when its body is read, a discard when its answer is cut).
 * While no recording wants the event, {@link #NONE} stands in and records nothing.
 *
 * <p>Thread-safe: the fields are written before the event is committed, and only the first end commits it.
 *
 * <p><b>Public because</b> {@code internal.read} ({@code AttemptSender}, {@code RetryingSender}) records each request
 * it sends with it.
 */
public final class RequestRecord {
    /** Records nothing. */
    public static final RequestRecord NONE = new RequestRecord(null, null, null);

    private final Event event;
    private final GetAttemptEvent get;
    private final FetchCause cause;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile long sentNanos;
    private volatile long firstByteNanos = -1;
    // the status of the answer whose head arrived: a ranged GET is answered 206 Partial Content, a HEAD or LIST 200
    private volatile int answeredStatus;

    private RequestRecord(Event event, GetAttemptEvent get, FetchCause cause) {
        this.event = event;
        this.get = get;
        this.cause = cause;
    }

    /** A GET attempt about to be sent; {@link #NONE} while no recording wants it. */
    public static RequestRecord get(
            String bucket, String key, String range, long requested, int attempt, boolean hedge, FetchCause cause) {
        GetAttemptEvent event = new GetAttemptEvent();
        if (!event.isEnabled()) {
            return NONE;
        }
        event.bucket = bucket;
        event.key = key;
        event.range = range;
        event.requested = requested;
        event.attempt = attempt;
        event.hedge = hedge;
        event.cause = cause.label();
        event.firstByte = -1;
        return new RequestRecord(event, event, cause);
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
        return new RequestRecord(event, null, null);
    }

    /** A record for a second send of the same GET (a hedge): the same fields, its own times. */
    public RequestRecord hedge() {
        if (get == null) {
            return NONE; // HEADs and LISTs are never hedged, and NONE stays NONE
        }
        return get(get.bucket, get.key, get.range, get.requested, get.attempt, true, cause);
    }

    /** The request goes out now. */
    public void sent() {
        if (event != null) {
            sentNanos = System.nanoTime();
            event.begin();
        }
    }

    /** Its answer's head arrived now. */
    public void answered() {
        if (event != null) {
            firstByteNanos = System.nanoTime() - sentNanos;
            answeredStatus = get != null ? 206 : 200;
        }
    }

    /** It ended well, {@code received} body bytes read. */
    public void completed(long received) {
        ended("complete", 0, received);
    }

    /** It ended with {@code failure}, {@code received} body bytes read first. */
    public void failed(Throwable failure, boolean aborted, long received) {
        int status = failure instanceof HttpStatusException http ? http.statusCode() : 0;
        ended(outcomeOf(failure, aborted), status, received);
    }

    /** Its body stopped arriving for longer than the between-bytes timeout. */
    public void stalled(long received) {
        ended("stalled", 0, received);
    }

    /** Its answer was cut: {@code outcome} says why ({@code hedge lost}, {@code abandoned}). */
    public void cut(String outcome) {
        ended(outcome, 0, 0);
    }

    private void ended(String outcome, int status, long received) {
        if (event == null || !ended.compareAndSet(false, true)) {
            return;
        }
        event.end();
        if (!event.shouldCommit()) {
            return;
        }
        if (status == 0) {
            status = answeredStatus;
        }
        if (get != null) {
            get.outcome = outcome;
            get.status = status;
            get.received = received;
            get.firstByte = firstByteNanos;
        } else {
            MetadataRequestEvent metadata = (MetadataRequestEvent) event;
            metadata.outcome = outcome;
            metadata.status = status;
        }
        event.commit();
    }

    private static String outcomeOf(Throwable failure, boolean aborted) {
        if (aborted) {
            return "cancelled";
        }
        if (failure instanceof HttpStatusException http) {
            return switch (http.statusCode()) {
                case 503 -> "throttled";
                case 412 -> "changed";
                default -> "failed";
            };
        }
        if (failure instanceof SocketTimeoutException) {
            return "timed out";
        }
        return "failed";
    }
}
