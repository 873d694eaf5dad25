package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

/**
 * One ListObjectsV2 request. S3 answers keys in UTF-8 binary order, at most {@code maxKeys} (and never more than
 * 1,000) a page. {@code startAfter} (exclusive, any string) counts only when no {@code continuationToken} is given.
 *
 * @param prefix only keys starting with it ({@code ""} for all)
 * @param startAfter only keys after it, or {@code null}
 * @param continuationToken the previous page's {@link ListPage#nextContinuationToken()}, or {@code null}
 * @param maxKeys at most this many keys and common prefixes (1 to 1,000)
 * @param delimiter keys holding it after the prefix are rolled up into common prefixes, or {@code null}
 */
public record ListRequest(
        String bucket, String prefix, String startAfter, String continuationToken, int maxKeys, String delimiter) {

    /** The most keys S3 answers in one page. */
    public static final int MAX_PAGE_SIZE = 1000;

    public ListRequest {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(prefix, "prefix is null");
        if (maxKeys < 1 || maxKeys > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("maxKeys must be 1 to " + MAX_PAGE_SIZE + ", got " + maxKeys);
        }
        if (delimiter != null && delimiter.isEmpty()) {
            throw new IllegalArgumentException("delimiter is empty: give null for none");
        }
    }

    /** The first page of everything under {@code prefix}. */
    public static ListRequest of(String bucket, String prefix, int maxKeys) {
        return new ListRequest(bucket, prefix, null, null, maxKeys, null);
    }

    public ListRequest withStartAfter(String startAfter) {
        return new ListRequest(bucket, prefix, startAfter, null, maxKeys, delimiter);
    }

    public ListRequest withContinuationToken(String token) {
        return new ListRequest(bucket, prefix, null, requireNonNull(token, "token is null"), maxKeys, delimiter);
    }

    /** For messages: {@code LIST s3://bucket/prefix (start-after ..., continued)}. */
    public String describe() {
        StringBuilder text =
                new StringBuilder("s3://").append(bucket).append('/').append(prefix);
        if (continuationToken != null) {
            text.append(" (continued)");
        } else if (startAfter != null) {
            text.append(" (start-after '").append(startAfter).append("')");
        }
        return text.toString();
    }
}
