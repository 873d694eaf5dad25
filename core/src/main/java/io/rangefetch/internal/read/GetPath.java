package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectContent;
import io.rangefetch.client.PreconditionFailedException;
import io.rangefetch.client.RangeGetRequest;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchCancelledException;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.IOException;

/**
 * The one way a GET is sent: the request that learns a version, block loads, vectored parts, prefetches and
 * reads straight into a caller's buffer all go through {@link #exchange}. It is where a request is held to
 * {@code read.max-request-size}, where an answer is held to the version the request pinned ({@code If-Match},
 * and the answer's own ETag), where a fetch that was aborted is told from one that failed, and where GETs are
 * counted. Retries, resuming a body that broke, and hedging belong here too, so that they apply to every GET.
 *
 * <p>Runs on fetch threads; stateless apart from its settings, so thread-safe.
 */
final class GetPath {
    private final ObjectClient client;
    private final long maxRequestSize;

    GetPath(ObjectClient client, long maxRequestSize) {
        this.client = requireNonNull(client, "client is null");
        this.maxRequestSize = maxRequestSize;
    }

    /** What to do with an answer whose version was checked: read its body. */
    @FunctionalInterface
    interface Answer<T> {
        T read(ObjectContent content) throws IOException;
    }

    /**
     * Sends {@code request}, checks the answer is of the version asked for, and has {@code answer} read the
     * body; closes the body after, or cuts its connection if reading it failed. A failure caused by an abort
     * comes out as {@link FetchCancelledException}; anything else the client or the body throws comes out as an
     * {@link IOException} naming the request.
     */
    <T> T exchange(RangeGetRequest request, FetchAbort abort, StatisticsCounter statistics, boolean prefetch,
            Answer<T> answer) throws IOException {
        long size = request.isSuffix() ? request.suffixLength() : request.range().length();
        if (size > maxRequestSize) {
            // a planning bug, not the caller's: no GET may be larger than the cap, whatever the plan says
            throw new IllegalStateException("GET " + request.describe() + " asks for " + size
                    + " bytes, more than read.max-request-size (" + maxRequestSize + ")");
        }
        if (abort.isAborted()) {
            // stopped between being handed a thread and sending: nothing to send, nobody to count
            throw new FetchCancelledException("GET " + request.describe() + " was cancelled before it was sent", null);
        }
        ObjectContent content;
        try {
            content = client.get(request);
        } catch (IOException | RuntimeException e) {
            statistics.failedGetSent();
            throw failure(abort, request, e);
        }
        T result;
        try {
            abort.attach(content);
            checkEtag(request, content.metadata().etag());
            result = answer.read(content);
        } catch (IOException | RuntimeException e) {
            content.abort();
            statistics.failedGetSent();
            throw failure(abort, request, e);
        }
        try {
            content.close();
        } catch (IOException | RuntimeException e) {
            // every byte was read; a connection that fails to close costs the pool a connection, not the read
        }
        statistics.getSent(content.range().length(), prefetch);
        return result;
    }

    /** Fails a GET that asked for one ETag and was answered with another. */
    static void checkEtag(RangeGetRequest request, String answered) throws PreconditionFailedException {
        String expected = request.ifMatch();
        if (expected != null && !expected.equals(answered)) {
            throw new PreconditionFailedException("GET " + request.describe() + " answered ETag " + answered
                    + " although it asked for " + expected, null);
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
