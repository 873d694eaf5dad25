package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.events.GetPhases;
import io.rangefetch.internal.events.GetPhases.Phase;
import io.rangefetch.internal.events.RequestRecord;
import io.rangefetch.internal.fetch.BackOff;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchCancelledException;
import io.rangefetch.internal.fetch.ThrottleGovernor;
import io.rangefetch.internal.fetch.ThrottleGovernor.Permit;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.internal.time.TimeSource;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one way a GET (and a HEAD) is sent: the request that learns a version, block loads, vectored parts,
 * prefetches and reads straight into a caller's buffer all go through {@link #fetch}. It is where a request is
 * held to {@code read.max-request-size}, where an answer is held to the version the request pinned
 * ({@code If-Match}, and the answer's own ETag), where a fetch that was aborted is told from one that failed,
 * where GETs are counted, where they are tried again, and where each attempt takes its place under the bucket's
 * throttle governor.
 *
 * <p><b>Retries.</b> A failure that sending again may fix (a connection that failed, a body cut short, an attempt
 * that timed out, 500, 502, 503, 504) is retried with exponential backoff and full jitter ({@link RetrySettings});
 * one it cannot fix is not (403, 404, 416, 412, an abort, an interrupt). A request is sent at most
 * {@code retry.max-attempts} times for failures other than 503, and up to five times as often for 503 SlowDown:
 * S3's way of asking for patience, which the governor answers by sending less, not by giving up; all within
 * {@code retry.deadline}. <b>Resume.</b> A
 * {@link Receiver} stores bytes in order and knows the first it has not received: a retry after an answer
 * arrived asks for exactly the rest, with {@code If-Match} on the ETag that answer came with. A resumed GET can
 * therefore never splice two versions: the object changed in between answers 412, which is not retried. A retry
 * before any answer arrived sends the same request again.
 *
 * <p><b>One attempt</b>: a place under the bucket's {@link ThrottleGovernor} (a demand attempt waits for one, a
 * prefetch nobody waits for is dropped when there is none), then {@link AttemptSender} sends it and waits for its
 * answer to begin (first-byte timeout, hedging), then the body is read under the {@link BodyWatchdog} (a body that
 * stalls is cut, and the attempt counts as timed out). The place is held until the body is read or the attempt
 * failed; a 503 lowers the limit, unless the governor found that 503s come at this share whatever the load (noise).
 * The retry of a 503 waits no longer than a first retry while the governor answers it (noise, or a limit that can
 * still go lower); only at the lowest limit does its wait double with each 503.
 *
 * <p><b>Backoff off the slot.</b> A fetch that {@linkplain FetchAbort#mayRunAgain may run again} (block loads,
 * prefetches, vectored parts and reads into a caller's buffer, HEADs) waits out a backoff by throwing {@link
 * BackOff}: its scheduler slot and its governor place are free meanwhile, and it is run again after the wait. What
 * its attempts came to (their count, the first answer's metadata) is kept with the fetch's abort; the bytes
 * received, by its {@link Receiver}. The other requests (the first GET of an object, which learns its version, and
 * listing pages) sleep the backoff out on their fetch thread, holding no governor place (a task on the factory's
 * {@link TimeSource} scheduler ends that sleep, and {@code retry.deadline} is measured on its ticker, as the
 * governor's wait for a place ends at a deadline on that ticker). The loop is written here
 * rather than with Failsafe: Failsafe's synchronous executor sleeps on the thread, and its asynchronous one would
 * run each attempt as a fetch of its own, losing the fetch's ticket (its cancel and promotion).
 *
 * <p><b>Why one file.</b> The retry loop's cases (what is retried, how resume asks for the rest, the governor's place,
 * the 503 rule, backoff on and off the slot) decide together whether a request may be sent again; sending one attempt
 * is {@link AttemptSender}'s and watching its body {@link BodyWatchdog}'s.
 *
 * <p>Runs on fetch threads; stateless apart from its settings and collaborators, all thread-safe.
 */
final class RetryingSender {
    private final long maxRequestSize;
    private final RetrySettings retry;
    private final boolean retries;
    private final AttemptSender sender;
    private final BodyWatchdog watchdog;
    private final ThrottleGovernor.PerBucket governors;
    private final Duration governorWait;
    private final TimeSource time;

    /**
     * @param governorWait how long a demand attempt may wait for a place under its bucket's governor (the read
     *     deadline; zero waits as long as the fetch is not aborted)
     */
    RetryingSender(
            long maxRequestSize,
            RetrySettings retry,
            AttemptSender sender,
            BodyWatchdog watchdog,
            ThrottleGovernor.PerBucket governors,
            Duration governorWait,
            TimeSource time) {
        this.maxRequestSize = maxRequestSize;
        this.retry = requireNonNull(retry, "retry is null");
        this.sender = requireNonNull(sender, "sender is null");
        this.watchdog = requireNonNull(watchdog, "watchdog is null");
        this.governors = requireNonNull(governors, "governors is null");
        this.governorWait = requireNonNull(governorWait, "governorWait is null");
        this.time = requireNonNull(time, "time is null");
        this.retries = retry.maxAttempts() > 1 && !retry.deadline().isZero();
    }

    /**
     * The longest wait before the retry that follows attempt number {@code attempt} (from 1): a first retry's when
     * the bucket's governor answers the 503 itself ({@link ThrottleGovernor#retriesWaitShort}).
     */
    static Duration waitBound(RetrySettings retry, int attempt, boolean shortWait) {
        return retry.delayBound(shortWait ? 1 : attempt);
    }

    /** Where one GET's body goes, in object order; it may take several answers when a body breaks. */
    interface Receiver {
        /**
         * Reads the body of an answer whose version was checked into place. The answer starts at
         * {@link #next()} (or, the first time, where the request asked): bytes already received are not sent
         * again. Must keep {@link #next()} just past the last byte it stored, also when it fails midway.
         */
        void receive(ObjectContent content) throws IOException;

        /** The first object byte not received yet; meaningful once {@link #end()} is. */
        long next();

        /** Just past the last byte wanted; -1 while no answer fixed it (a retry then sends the request again). */
        long end();

        /** Where the GET's phases are kept for the reads that wait for it ({@link GetPhases#OFF}: nowhere). */
        default GetPhases phases() {
            return GetPhases.OFF;
        }

        /** Attempt number {@code attempt} (from 1) failed: for whoever reports on the GET. */
        default void attemptFailed(int attempt, IOException failure) {}

        /**
         * Gives the GET up, if nobody waits for its bytes: a prefetch with no place under its bucket's governor.
         * Must decide atomically against readers joining (so that none joins a GET that is then dropped):
         * {@code false} when one did, and the GET must be sent after all.
         */
        default boolean dropIfUnwanted() {
            return false;
        }

        /**
         * Whether a backoff may be waited out off the fetch slot, the fetch running again after it ({@link BackOff}):
         * only when the next run loses nothing this one received. A receiver made anew by each run (the learning
         * request's) says no once an answer fixed its range: its retry then waits on the slot and resumes under
         * that answer's ETag.
         */
        default boolean mayWaitOffTheSlot() {
            return true;
        }
    }

    /**
     * Sends {@code request}, checks each answer is of the version asked for, and has {@code receiver} read its
     * body, retrying and resuming as the class note says. Returns what the answer told about the object. A
     * failure caused by an abort comes out as {@link FetchCancelledException}; one whose retries ran out as an
     * {@link IOException} naming the request and how many attempts were made, with the last failure as cause.
     */
    ObjectMetadata fetch(
            RangeGetRequest request,
            FetchAbort abort,
            StatisticsCounter statistics,
            boolean prefetch,
            FetchCause cause,
            Receiver receiver)
            throws IOException {
        checkSize(request);
        Attempts attempts = attempts("GET " + request.describe(), abort);
        return retrying(attempts, request.object().bucket(), abort, statistics, receiver, attempt -> {
            RangeGetRequest sent = request;
            boolean started = attempts.answered != null && receiver.end() >= 0; // the receiver took the answer's range
            if (started && receiver.next() >= receiver.end()) {
                return attempts.answered; // every byte arrived before the answer failed (at its end): nothing to ask
            }
            if (started) {
                // an answer arrived and its body broke: ask for the rest only, of the version it came from
                sent = RangeGetRequest.of(
                        request.object(), new ByteRange(receiver.next(), receiver.end()), attempts.answered.etag());
                statistics.resumed();
            }
            return send(sent, abort, statistics, prefetch, cause, attempt, receiver, attempts);
        });
    }

    /** Sends a HEAD, retried as a GET is. */
    ObjectMetadata head(ObjectAddress object, FetchAbort abort, StatisticsCounter statistics) throws IOException {
        return retrying(attempts("HEAD " + object, abort), object.bucket(), abort, statistics, null, attempt -> {
            Permit permit = admit(object.bucket(), abort, "HEAD " + object, null);
            statistics.headSent();
            return sender.head(
                    object,
                    abort,
                    statistics,
                    permit,
                    RequestRecord.metadata("HEAD", object.bucket(), object.key(), attempt));
        });
    }

    /**
     * Sends one ListObjectsV2 request, retried as a GET is and holding a place under the bucket's governor like
     * one (a 503 lowers its limit).
     */
    ListPage list(ListRequest request, FetchAbort abort, StatisticsCounter statistics) throws IOException {
        String what = "LIST " + request.describe();
        return retrying(attempts(what, abort), request.bucket(), abort, statistics, null, attempt -> {
            Permit permit = admit(request.bucket(), abort, what, null);
            statistics.listSent();
            return sender.list(
                    request,
                    abort,
                    statistics,
                    permit,
                    RequestRecord.metadata("LIST", request.bucket(), request.prefix(), attempt));
        });
    }

    /**
     * A place under the bucket's governor for one attempt ({@code null} when none governs it). A prefetch nobody
     * waits for does not wait for one: it is dropped, unless a reader joined it meanwhile ({@code receiver} decides
     * that atomically), and then it waits like any demand request.
     */
    private Permit admit(String bucket, FetchAbort abort, String what, Receiver receiver) throws IOException {
        ThrottleGovernor governor = governors.forBucket(bucket);
        if (governor == null) {
            return null;
        }
        if (abort.isSpeculative()) {
            Permit permit = governor.tryAcquire();
            if (permit != null) {
                return permit;
            }
            if (receiver != null && receiver.dropIfUnwanted()) {
                throw new FetchCancelledException(
                        what + " was dropped: the throttle governor of bucket " + bucket
                                + " has no place to spare for a prefetch",
                        null);
            }
        }
        return governor.acquire(abort, time.deadlineAfter(governorWait));
    }

    /** One attempt; {@code attempts} keeps the first answer's metadata, recorded before its body is read. */
    private ObjectMetadata send(
            RangeGetRequest request,
            FetchAbort abort,
            StatisticsCounter statistics,
            boolean prefetch,
            FetchCause cause,
            int attempt,
            Receiver receiver,
            Attempts attempts)
            throws IOException {
        String bucket = request.object().bucket();
        GetPhases phases = receiver.phases();
        phases.enter(Phase.THROTTLE);
        // not sent, so not counted, when it is dropped or stopped while it waits for its place
        Permit permit = admit(bucket, abort, "GET " + request.describe(), receiver);
        phases.enter(Phase.FIRST_BYTE);
        RequestRecord record = RequestRecord.get(
                bucket, request.object().key(), request.httpRange(), size(request), attempt, false, cause);
        AttemptSender.Answer answer;
        try {
            answer = sender.get(request, size(request), abort, statistics, governors.forBucket(bucket), permit, record);
        } catch (IOException | RuntimeException e) {
            statistics.failedGetSent();
            throw failure(abort, request, e);
        }
        phases.enter(Phase.TRANSFER);
        ObjectContent content = answer.content();
        // where the body's first byte goes: the receiver's next, once an earlier answer fixed its range
        long from = receiver.end() >= 0 ? receiver.next() : content.range().start();
        try (BodyWatchdog.Watch watch = watchdog.watch(content)) {
            try {
                abort.attach(content);
                checkEtag(request, content.metadata().etag());
                if (attempts.answered == null) {
                    attempts.answered = content.metadata(); // a broken body resumes under this answer's ETag
                }
                receiver.receive(watch.content());
            } catch (IOException | RuntimeException e) {
                content.abort();
                AttemptSender.give(answer.permit(), e, statistics);
                statistics.failedGetSent();
                long received = Math.max(0, receiver.next() - from);
                if (watch.timedOut() && !abort.isAborted()) {
                    answer.record().stalled(received);
                    SocketTimeoutException stalled = new SocketTimeoutException("GET " + request.describe()
                            + " received no byte for " + watch.timeout() + " (retry.between-bytes-timeout)");
                    stalled.initCause(e);
                    throw stalled;
                }
                answer.record().failed(e, abort.isAborted(), received);
                throw failure(abort, request, e);
            }
        }
        answer.record().completed(content.range().length());
        if (answer.permit() != null) {
            answer.permit().succeeded();
        }
        try {
            content.close();
        } catch (IOException | RuntimeException e) {
            // every byte was read; a connection that fails to close costs the pool a connection, not the read
        }
        statistics.getSent(content.range().length(), prefetch);
        return content.metadata();
    }

    @FunctionalInterface
    private interface Attempt<T> {
        T run(int number) throws IOException;
    }

    /**
     * What one request's attempts have come to: kept with its fetch's abort when the fetch may run again after a
     * backoff, so that its next run goes on counting (and resumes under the first answer's ETag).
     */
    private static final class Attempts {
        private final String what;
        private final long started;
        private int made;
        private int failed; // failures that may pass, 503s excepted
        private int throttled; // 503s
        private ObjectMetadata answered;

        Attempts(String what, long started) {
            this.what = what;
            this.started = started;
        }
    }

    private Attempts attempts(String what, FetchAbort abort) {
        if (!abort.mayRunAgain()) {
            return new Attempts(what, time.nanos());
        }
        if (abort.retryState() instanceof Attempts kept && kept.what.equals(what)) {
            return kept; // this fetch's earlier run backed off: go on where it stopped
        }
        Attempts fresh = new Attempts(what, time.nanos());
        abort.retryState(fresh);
        return fresh;
    }

    private <T> T retrying(
            Attempts attempts,
            String bucket,
            FetchAbort abort,
            StatisticsCounter statistics,
            Receiver log,
            Attempt<T> attempt)
            throws IOException {
        while (true) {
            int number = ++attempts.made;
            if (abort.isAborted()) {
                // stopped before this attempt was sent (or between two): nothing to send, nobody to count
                throw new FetchCancelledException(attempts.what + " was cancelled before it was sent", null);
            }
            if (number > 1) {
                statistics.retried();
            }
            IOException failure;
            try {
                return attempt.run(number);
            } catch (IOException e) {
                failure = e;
            }
            if (log != null) {
                log.attemptFailed(number, failure);
            }
            if (!retries || !isTransient(failure)) {
                throw failure;
            }
            boolean throttled = failure instanceof HttpStatusException status && status.statusCode() == 503;
            int count = throttled ? ++attempts.throttled : ++attempts.failed;
            long left = retry.deadline().toNanos() - (time.nanos() - attempts.started);
            if (count >= (throttled ? retry.maxThrottledAttempts() : retry.maxAttempts()) || left <= 0) {
                throw number > 1 ? exhausted(attempts.what, number, failure) : failure;
            }
            ThrottleGovernor governor = throttled ? governors.forBucket(bucket) : null;
            boolean shortWait = governor != null && governor.retriesWaitShort();
            long wait = Math.min(
                    left, fullJitter(waitBound(retry, number, shortWait)).toNanos());
            if (log != null) {
                log.phases().enter(Phase.BACKOFF);
            }
            if (abort.mayRunAgain() && (log == null || log.mayWaitOffTheSlot())) {
                throw new BackOff(wait); // the scheduler runs this fetch again after the wait, its slot free meanwhile
            }
            time.sleep(wait, attempts.what);
        }
    }

    /** A wait from 0 to {@code limit}, at random. */
    private static Duration fullJitter(Duration limit) {
        long bound = limit.toNanos();
        return bound <= 0
                ? Duration.ZERO
                : Duration.ofNanos(ThreadLocalRandom.current().nextLong(bound + 1));
    }

    private static IOException exhausted(String what, int attempts, IOException last) {
        return new IOException(what + " failed " + attempts + " times; the last attempt: " + last.getMessage(), last);
    }

    /**
     * Whether sending the same request again may fix {@code failure}: a transport failure or a body cut short
     * may, and so may an attempt that timed out; 500, 502, 503 and 504 may; a missing object, a range past the end, a changed version, a refusal, an
     * abort or an interrupt may not.
     */
    static boolean isTransient(Throwable failure) {
        if (failure instanceof SocketTimeoutException) {
            return true; // an InterruptedIOException by type, but a timeout: a new attempt may well be quicker
        }
        if (failure instanceof FetchCancelledException
                || failure instanceof InterruptedIOException
                || failure instanceof FileNotFoundException) {
            return false;
        }
        if (failure instanceof HttpStatusException status) {
            return status.isTransient(); // never a 412 (the object changed) nor a 416 (past the end)
        }
        return failure instanceof IOException;
    }

    private static long size(RangeGetRequest request) {
        return request.isSuffix() ? request.suffixLength() : request.range().length();
    }

    private void checkSize(RangeGetRequest request) {
        long size = size(request);
        if (size > maxRequestSize) {
            // a planning bug, not the caller's: no GET may be larger than the cap, whatever the plan says
            throw new IllegalStateException("GET " + request.describe() + " asks for " + size
                    + " bytes, more than read.max-request-size (" + maxRequestSize + ")");
        }
    }

    /** Fails a GET that asked for one ETag and was answered with another. */
    static void checkEtag(RangeGetRequest request, String answered) throws HttpStatusException {
        String expected = request.ifMatch();
        if (expected != null && !expected.equals(answered)) {
            throw new HttpStatusException(
                    "GET " + request.describe() + " answered ETag " + answered + " although it asked for " + expected,
                    412,
                    null);
        }
    }

    private static IOException failure(FetchAbort abort, RangeGetRequest request, Exception failure) {
        if (abort.isAborted()) {
            return new FetchCancelledException("GET " + request.describe() + " was aborted", failure);
        }
        if (failure instanceof IOException io) {
            return io;
        }
        return new IOException("GET " + request.describe() + " failed: " + failure, failure);
    }
}
