package io.rangefetch.benchmarks.run;

/**
 * What a run sent and received, as the shaping proxy counted it: GET and HEAD requests (a GET of an object;
 * ListObjectsV2 requests are counted apart as {@code lists}), response body bytes,
 * {@code 503 SlowDown} answers (the proxy's injected faults and its request-rate limit, or the server's own)
 * and responses whose head the proxy held back as an injected slow first byte. Unknown (every field -1) where
 * no proxy stands between reader and server.
 */
public record Traffic(long gets, long heads, long bodyBytes, long slowDowns, long delayedFirstBytes, long lists) {

    public static final Traffic UNKNOWN = new Traffic(-1, -1, -1, -1, -1, -1);

    public boolean known() {
        return gets >= 0;
    }
}
