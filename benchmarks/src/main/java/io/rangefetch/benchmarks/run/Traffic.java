package io.rangefetch.benchmarks.run;

/**
 * What a run sent and received, as the shaping proxy counted it: GET and HEAD requests and response body
 * bytes. Unknown (every field -1) where no proxy stands between reader and server.
 */
public record Traffic(long gets, long heads, long bodyBytes) {

    public static final Traffic UNKNOWN = new Traffic(-1, -1, -1);

    public boolean known() {
        return gets >= 0;
    }
}
