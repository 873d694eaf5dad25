package io.rangefetch.testing.proxy;

import static java.util.Objects.requireNonNull;

/**
 * One request a {@link ShapingProxy} received and what it answered.
 *
 * @param method the HTTP method, as sent
 * @param target the request target as sent: path and query
 * @param rangeHeader the {@code Range} header, or null if the request had none
 * @param status the final response's status; 0 while no response has started
 * @param bodyBytes response body bytes handed to the client so far (chunk framing excluded)
 */
public record ProxiedRequest(String method, String target, String rangeHeader, int status, long bodyBytes) {

    public ProxiedRequest {
        requireNonNull(method, "method is null");
        requireNonNull(target, "target is null");
    }

    /**
     * Whether this is a ListObjectsV2 request: a GET of a bucket with {@code list-type=2} in its query (the
     * ledger counts these as {@code LIST}, apart from object GETs).
     */
    public boolean isList() {
        return isList(method, target);
    }

    static boolean isList(String method, String target) {
        int query = target.indexOf('?');
        return method.equals("GET") && query >= 0 && ("&" + target.substring(query + 1)).contains("&list-type=2");
    }
}
