package io.rangefetch.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Records every request an SDK client sends, as it goes on the wire: its method, path, range and the access key id of
 * the credentials it was signed with (the {@code Credential=AKID/...} part of its {@code Authorization} header, which
 * the SDK has signed by the time {@code beforeTransmission} runs). A test thereby asks who signed what, whichever
 * credentials provider the request named: the client's own or a stream's. Only access key ids are kept, never a
 * secret.
 *
 * <p>It also counts the requests sent and not yet answered, so a test can wait until none is in flight before it
 * starts counting the next phase's. Thread-safe.
 */
final class SignedRequests implements ExecutionInterceptor {
    /** What an unsigned request (anonymous credentials) is recorded as signed by. */
    static final String UNSIGNED = "(unsigned)";

    private static final ExecutionAttribute<Boolean> SENT = new ExecutionAttribute<>("rangefetch-it-signed-sent");

    private final List<Sent> sent = new ArrayList<>(); // guarded by this
    private int inFlight; // guarded by this

    /** One request as it was sent. */
    record Sent(String method, String path, String range, String signedBy) {
        boolean isGet() {
            return method.equals("GET") && !path.endsWith("/") && !path.contains("list-type");
        }

        @Override
        public String toString() {
            return method + " " + path + (range == null ? "" : " " + range) + " signed by " + signedBy;
        }
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        SdkHttpRequest request = context.httpRequest();
        String path = request.encodedPath()
                + request.encodedQueryParameters().map(query -> "?" + query).orElse("");
        Sent one = new Sent(
                request.method().name(),
                path,
                request.firstMatchingHeader("Range").orElse(null),
                signer(request));
        attributes.putAttribute(SENT, Boolean.TRUE);
        synchronized (this) {
            sent.add(one);
            inFlight++;
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        answered(attributes);
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        answered(attributes);
    }

    private void answered(ExecutionAttributes attributes) {
        // only requests that went out count: a request can fail before it is sent (its credentials did not resolve)
        if (Boolean.TRUE.equals(attributes.getAttribute(SENT))) {
            attributes.putAttribute(SENT, Boolean.FALSE);
            synchronized (this) {
                inFlight--;
                notifyAll();
            }
        }
    }

    /** The access key id of the credentials that signed {@code request}, from its SigV4 credential scope. */
    static String signer(SdkHttpRequest request) {
        String credential = request.firstMatchingHeader("Authorization")
                .map(header -> after(header, "Credential="))
                .orElseGet(() -> request.firstMatchingRawQueryParameter("X-Amz-Credential")
                        .orElse(null));
        if (credential == null) {
            return UNSIGNED;
        }
        int slash = credential.indexOf('/');
        return slash < 0 ? credential : credential.substring(0, slash);
    }

    private static String after(String header, String marker) {
        int at = header.indexOf(marker);
        return at < 0 ? null : header.substring(at + marker.length());
    }

    /** Every request sent since the last {@link #clear()}, in the order they were sent. */
    synchronized List<Sent> all() {
        return List.copyOf(sent);
    }

    /** The GETs of an object (not a listing) sent since the last {@link #clear()}. */
    synchronized List<Sent> gets() {
        return sent.stream().filter(Sent::isGet).toList();
    }

    /** Forgets what was recorded (requests in flight stay counted as in flight). */
    synchronized void clear() {
        sent.clear();
    }

    /**
     * Waits until every request sent has been answered (or failed); whether that happened within {@code limit}. A
     * fetch a stream queued and has not sent yet is not seen: call this after the reads whose requests should be over.
     */
    synchronized boolean awaitQuiet(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (inFlight > 0) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }
}
