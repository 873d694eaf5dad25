package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import io.rangefetch.internal.events.GetOutcome;
import io.rangefetch.internal.events.RequestRecord;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchCancelledException;
import io.rangefetch.internal.fetch.ThrottleGovernor;
import io.rangefetch.internal.fetch.ThrottleGovernor.Permit;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.internal.time.TimeSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Sends one attempt of a GET, HEAD or LIST and waits for its answer to begin: no longer than the first-byte timeout,
 * and, for a GET slow to begin, sending it a second time ("hedging") so that whichever answer comes first wins.
 *
 * <p><b>Why another thread.</b> A blocking client call cannot be given up before its answer's head arrives: only
 * a body can be cut. So the request is sent from an exchange thread and the fetch thread waits for it, which
 * lets it stop waiting at the timeout, send a hedge, or leave when the fetch is aborted. An answer nobody waits
 * for any more is cut the moment it arrives, and its governor place given back.
 *
 * <p><b>Hedging.</b> A GET with no answer after the {@link HedgeSettings#percentile() percentile} of recent
 * first-byte latencies of its size class ({@link FirstByteLatencies}), and at least the minimum delay, is sent
 * again (the pool gives the second GET another connection, as the first one is busy). Before the class has enough
 * latencies to tell, the wait is {@value #COLD_HEDGE_DELAY_MILLIS} ms: S3 starts most answers within a small
 * fraction of that, and a fresh factory's first GETs (a job's first reads, where one held answer stalls every task)
 * are hedged too. Hedges are at most {@link HedgeSettings#maxFraction()} of the GETs sent, or {@value
 * #FIRST_HEDGES} while that share is fewer (so that the first GETs, which earned none yet, can be hedged), and
 * need a free place under the bucket's governor, so hedging never adds load to a bucket that throttles. The latency
 * recorded is the winner's, counted from the first send: so the slow answers a hedge cut short do not push the
 * percentile up to their own delay.
 *
 * <p><b>Places.</b> The caller hands the attempt's governor {@link Permit} over; the permit of the answer that
 * wins comes back with it, and every other is given back here: "throttled" for a 503, "ignored" otherwise. A
 * 503 here is also counted in the statistics. When this throws, every permit has been given back.
 *
 * <p><b>Events.</b> Each send that goes out is one event ({@link RequestRecord}): begun on the thread that sends
 * it, ended where its end is seen (a failure before an answer on that thread, a cut answer where it is discarded,
 * the winner's by the caller, once its body is read). A send discarded before it went out records nothing.
 *
 * <p><b>Time.</b> Latencies are measured on the factory's {@link TimeSource} ticker; the hedge's delay and the
 * first-byte timeout end through tasks on its scheduler, which complete a future the fetch thread waits on beside
 * the answers and the abort (never a timed wait on real time). Those tasks only complete futures: the fetch thread
 * never waits on a thread that could be waiting for it.
 *
 * <p>Thread-safe; its counters are atomic, its latencies guard themselves.
 */
final class AttemptSender {
    /** The hedge wait of a GET whose size class has no percentile yet. */
    static final long COLD_HEDGE_DELAY_MILLIS = 300;

    private static final long COLD_HEDGE_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(COLD_HEDGE_DELAY_MILLIS);
    /** Hedges a sender may send before its share of the GETs sent allows as many. */
    static final int FIRST_HEDGES = 2;

    private final ObjectClient client;
    private final Executor exchanges;
    private final long firstByteTimeoutNanos;
    private final HedgeSettings hedging;
    private final FirstByteLatencies latencies;
    private final TimeSource time;
    private final AtomicLong getsSent = new AtomicLong();
    private final AtomicLong hedgesSent = new AtomicLong();

    /** @param exchanges where requests are sent from; {@code null} sends on the caller's thread, unwatched */
    AttemptSender(
            ObjectClient client,
            Executor exchanges,
            Duration firstByteTimeout,
            HedgeSettings hedging,
            TimeSource time) {
        this.client = requireNonNull(client, "client is null");
        this.exchanges = exchanges;
        this.firstByteTimeoutNanos =
                requireNonNull(firstByteTimeout, "firstByteTimeout is null").toNanos();
        this.hedging = requireNonNull(hedging, "hedging is null");
        this.latencies = new FirstByteLatencies(hedging.percentile());
        this.time = requireNonNull(time, "time is null");
    }

    /** A GET's answer, with the place of the send that won and its event, for the caller to end. */
    record Answer(ObjectContent content, Permit permit, RequestRecord record) {}

    Answer get(
            RangeGetRequest request,
            long size,
            FetchAbort abort,
            StatisticsCounter statistics,
            ThrottleGovernor governor,
            Permit permit,
            RequestRecord record)
            throws IOException {
        getsSent.incrementAndGet();
        long start = time.nanos();
        if (exchanges == null) {
            try {
                record.sent();
                ObjectContent content = client.get(request);
                record.answered();
                recordFirstByte(size, time.nanos() - start);
                answered(permit);
                return new Answer(content, permit, record);
            } catch (IOException | RuntimeException e) {
                record.failed(e, abort.isAborted(), 0);
                give(permit, e, statistics);
                throw e;
            }
        }
        Send<ObjectContent> primary = send(() -> client.get(request), permit, abort, record);
        Send<ObjectContent> hedge = null;
        long percentile = latencies.percentileNanos(size);
        boolean cold = percentile < 0;
        long hedgeAt = hedging.active()
                ? start + Math.max(hedging.minDelay().toNanos(), cold ? COLD_HEDGE_DELAY_NANOS : percentile)
                : Long.MAX_VALUE;
        long timeoutAt = firstByteTimeoutNanos > 0 ? start + firstByteTimeoutNanos : Long.MAX_VALUE;
        TimeSource.Due hedgeDue = time.dueAt(hedgeAt);
        TimeSource.Due timeoutDue = time.dueAt(timeoutAt);
        boolean hedgeTried = false;
        try {
            while (true) {
                Send<ObjectContent> winner =
                        primary.succeeded() ? primary : hedge != null && hedge.succeeded() ? hedge : null;
                if (winner != null) {
                    recordFirstByte(size, time.nanos() - start);
                    answered(winner.permit);
                    if (winner == hedge) {
                        statistics.hedgeWon();
                    }
                    Send<ObjectContent> loser = winner == primary ? hedge : primary;
                    if (loser != null) {
                        loser.discard(ObjectContent::abort, statistics, GetOutcome.HEDGE_LOST);
                    }
                    return new Answer(winner.future.join(), winner.permit, winner.record);
                }
                if (primary.failed() && (hedge == null || hedge.failed())) {
                    throw primary.failure();
                }
                if (!hedgeTried && isDue(hedgeDue, hedgeAt) && !primary.failed()) {
                    hedgeTried = true; // once: a hedge refused (no share, no place) is not tried again
                    hedge = hedge(request, governor, statistics, abort, record);
                    continue;
                }
                if (isDue(timeoutDue, timeoutAt)) {
                    throw new SocketTimeoutException("GET " + request.describe() + " had no answer within "
                            + Duration.ofNanos(firstByteTimeoutNanos) + " (retry.first-byte-timeout)");
                }
                await(
                        abort,
                        "GET " + request.describe(),
                        primary.future,
                        hedge == null ? primary.future : hedge.future,
                        hedgeTried ? timeoutDue.future() : hedgeDue.future(),
                        timeoutDue.future());
            }
        } catch (IOException | RuntimeException e) {
            GetOutcome outcome = e instanceof SocketTimeoutException ? GetOutcome.TIMED_OUT : GetOutcome.ABANDONED;
            primary.discard(ObjectContent::abort, statistics, outcome);
            if (hedge != null) {
                hedge.discard(ObjectContent::abort, statistics, outcome);
            }
            throw e;
        } finally {
            hedgeDue.close();
            timeoutDue.close();
        }
    }

    /** Whether a deadline has come: its task ran, or the ticker has passed it. */
    private boolean isDue(TimeSource.Due due, long deadline) {
        return due.isDue() || time.passed(deadline);
    }

    /** Counts one GET's first-byte latency toward its size class's percentile. */
    void recordFirstByte(long size, long nanos) {
        latencies.record(size, nanos);
    }

    /** A HEAD, within the first-byte timeout; never hedged. */
    ObjectMetadata head(
            ObjectAddress object, FetchAbort abort, StatisticsCounter statistics, Permit permit, RequestRecord record)
            throws IOException {
        return unhedged("HEAD " + object, () -> client.head(object), abort, statistics, permit, record);
    }

    /** A ListObjectsV2 request, within the first-byte timeout; never hedged. */
    ListPage list(
            ListRequest request, FetchAbort abort, StatisticsCounter statistics, Permit permit, RequestRecord record)
            throws IOException {
        return unhedged("LIST " + request.describe(), () -> client.list(request), abort, statistics, permit, record);
    }

    /** A request whose whole answer arrives with its head (nothing to cut later), within the first-byte timeout. */
    private <T> T unhedged(
            String what,
            Request<T> request,
            FetchAbort abort,
            StatisticsCounter statistics,
            Permit permit,
            RequestRecord record)
            throws IOException {
        if (exchanges == null) {
            try {
                record.sent();
                T answer = request.send();
                record.completed(0);
                succeeded(permit);
                return answer;
            } catch (IOException | RuntimeException e) {
                record.failed(e, abort.isAborted(), 0);
                give(permit, e, statistics);
                throw e;
            }
        }
        Send<T> sent = send(request, permit, abort, record);
        long timeoutAt = firstByteTimeoutNanos > 0 ? time.nanos() + firstByteTimeoutNanos : Long.MAX_VALUE;
        try (TimeSource.Due timeoutDue = time.dueAt(timeoutAt)) {
            while (!sent.future.isDone()) {
                if (isDue(timeoutDue, timeoutAt)) {
                    throw new SocketTimeoutException(what + " had no answer within "
                            + Duration.ofNanos(firstByteTimeoutNanos) + " (retry.first-byte-timeout)");
                }
                await(abort, what, sent.future, sent.future, timeoutDue.future(), timeoutDue.future());
            }
            if (sent.failed()) {
                throw sent.failure();
            }
            succeeded(sent.permit);
            record.completed(0);
            return sent.future.join();
        } catch (IOException | RuntimeException e) {
            sent.discard(
                    answer -> {},
                    statistics,
                    e instanceof SocketTimeoutException ? GetOutcome.TIMED_OUT : GetOutcome.ABANDONED);
            throw e;
        }
    }

    private Send<ObjectContent> hedge(
            RangeGetRequest request,
            ThrottleGovernor governor,
            StatisticsCounter statistics,
            FetchAbort abort,
            RequestRecord primary) {
        // a sender's first GETs have earned no share yet: until the share is larger, a few hedges are allowed
        if (hedgesSent.get() + 1 > Math.max(hedging.maxFraction() * getsSent.get(), FIRST_HEDGES)) {
            return null;
        }
        Permit permit = null;
        if (governor != null) {
            permit = governor.tryAcquire();
            if (permit == null) {
                return null; // the bucket has no place to spare: a hedge must not add to its load
            }
        }
        hedgesSent.incrementAndGet();
        statistics.hedgeSent();
        return send(() -> client.get(request), permit, abort, primary.hedge());
    }

    /**
     * Waits until one of two sends completes, the fetch is aborted, or one of two deadlines' futures is completed
     * by the scheduler.
     */
    private static void await(
            FetchAbort abort,
            String what,
            CompletableFuture<?> one,
            CompletableFuture<?> other,
            CompletableFuture<Void> due,
            CompletableFuture<Void> otherDue)
            throws IOException {
        if (abort.isAborted()) {
            throw new FetchCancelledException(what + " was aborted before its answer came", null);
        }
        try {
            CompletableFuture.anyOf(one, other, abort.whenAborted(), due, otherDue)
                    .get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while waiting for " + what);
            interrupted.initCause(e);
            throw interrupted;
        } catch (ExecutionException e) {
            // a send failed: the caller looks at where things stand
        }
        if (abort.isAborted()) {
            throw new FetchCancelledException(what + " was aborted before its answer came", null);
        }
    }

    @FunctionalInterface
    private interface Request<T> {
        T send() throws IOException;
    }

    private <T> Send<T> send(Request<T> request, Permit permit, FetchAbort abort, RequestRecord record) {
        Send<T> send = new Send<>(permit, abort, record);
        try {
            exchanges.execute(() -> send.go(request));
        } catch (RuntimeException e) {
            send.future.completeExceptionally(new FetchCancelledException("The request could not be sent: " + e, e));
        }
        return send;
    }

    private static void answered(Permit permit) {
        if (permit != null) {
            permit.answered();
        }
    }

    private static void succeeded(Permit permit) {
        if (permit != null) {
            permit.succeeded();
        }
    }

    /** Gives a place back after {@code failure}: a 503 says the bucket is throttling. */
    static void give(Permit permit, Throwable failure, StatisticsCounter statistics) {
        boolean throttled = failure instanceof HttpStatusException status && status.statusCode() == 503;
        if (throttled) {
            statistics.throttled();
        }
        if (permit != null) {
            if (throttled) {
                permit.throttled();
            } else {
                permit.ignored();
            }
        }
    }

    /**
     * One send of the request, on an exchange thread, and the governor place it holds. One discarded before a thread
     * took it up is never sent: its answer would only be cut, after the read that caused it had failed.
     */
    private static final class Send<T> {
        private final CompletableFuture<T> future = new CompletableFuture<>();
        private final Permit permit;
        private final FetchAbort abort;
        private final RequestRecord record;
        // Set by whichever comes first: the exchange thread sending it, or a discard abandoning it.
        private final AtomicBoolean taken = new AtomicBoolean();

        Send(Permit permit, FetchAbort abort, RequestRecord record) {
            this.permit = permit;
            this.abort = abort;
            this.record = record;
        }

        /** Runs on an exchange thread: sends the request, unless it was abandoned while it waited for the thread. */
        void go(Request<T> request) {
            if (!taken.compareAndSet(false, true)) {
                return; // abandoned: discard completed the future and gave the place back
            }
            record.sent();
            try {
                T answer = request.send();
                record.answered();
                future.complete(answer);
            } catch (Throwable e) {
                record.failed(e, abort.isAborted(), 0);
                future.completeExceptionally(e);
            }
        }

        boolean succeeded() {
            return future.isDone() && !future.isCompletedExceptionally();
        }

        boolean failed() {
            return future.isCompletedExceptionally();
        }

        IOException failure() {
            Throwable cause;
            try {
                future.join();
                throw new IllegalStateException("The send did not fail");
            } catch (CompletionException e) {
                cause = e.getCause();
            }
            if (cause instanceof IOException io) {
                return io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            return new IOException(cause);
        }

        /**
         * Nobody waits for it: unsent, it never goes; sent, its answer is cut ({@code outcome} says why, in its
         * event). Its place is given back.
         */
        void discard(Consumer<T> cut, StatisticsCounter statistics, GetOutcome outcome) {
            if (taken.compareAndSet(false, true)) {
                future.completeExceptionally(
                        new FetchCancelledException("The request was abandoned before it was sent", null));
            }
            future.whenComplete((answer, failure) -> {
                if (answer != null) {
                    if (permit != null) {
                        permit.ignored(); // first, so that whoever sees the cut sees the place free
                    }
                    record.cut(outcome);
                    cut.accept(answer);
                } else {
                    give(permit, failure instanceof CompletionException ? failure.getCause() : failure, statistics);
                }
            });
        }
    }
}
