package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.http.Abortable;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The one seam between Rangefetch and S3. {@link #of(S3AsyncClient)} (Netty or CRT) and {@link #of(S3Client)} make
 * one over the SDK's clients; users may bring their own (an instrumented client, another store).
 *
 * <p>An implementation sends exactly the request it is given, translates errors at this edge and knows nothing
 * about caching. It must be safe to call from many threads at once.
 *
 * <ul>
 *   <li>a missing bucket or key: {@link FileNotFoundException}</li>
 *   <li>412 (the {@code If-Match} ETag no longer matches), 416 (range past the end) and every other error status:
 *       {@link HttpStatusException} with that status</li>
 *   <li>anything else: an {@link IOException} naming bucket, key and range</li>
 * </ul>
 *
 * <p>The requests and answers are records nested here: they exist only as this interface's parameters and
 * results.
 */
public interface ObjectClient extends AutoCloseable {

    /**
     * A client over the SDK's asynchronous S3 client, built either with the Netty HTTP client
     * ({@code S3AsyncClient.builder()}) or with the CRT ({@code S3AsyncClient.crtBuilder()}). The body is handed
     * over as a blocking stream as soon as the response headers arrive. Every request is sent with one SDK attempt,
     * except through the CRT client, which retries in native code (one warning per JVM names what to set). The S3
     * client stays the caller's.
     */
    static ObjectClient of(S3AsyncClient s3) {
        return new SdkAsyncObjectClient(s3);
    }

    /** A client over the SDK's synchronous S3 client; every request is sent with one SDK attempt. */
    static ObjectClient of(S3Client s3) {
        return new SdkSyncObjectClient(s3);
    }

    /** Sends a closed-range GET; the caller reads and closes the returned body. */
    ObjectContent get(RangeGetRequest request) throws IOException;

    /** Sends a HEAD. */
    ObjectMetadata head(ObjectAddress object) throws IOException;

    /**
     * Sends one ListObjectsV2 request and answers its page as the server sent it. A missing bucket is a
     * {@link FileNotFoundException}; other failures name the bucket and prefix. Implementations that cannot list
     * keep this default, which says so: the factory's {@code list} then fails with it.
     */
    default ListPage list(ListRequest request) throws IOException {
        throw new UnsupportedOperationException(
                getClass().getName() + " does not implement ListObjectsV2 (list " + request.describe() + ")");
    }

    /**
     * The credentials a request is signed with when its {@link ObjectAddress} names none, if this client can tell:
     * a factory counts the streams that name no credentials of their own as the identity these resolve to (see
     * {@code StreamFactory}), so that what they fetch is shared with other streams of the same principal and no
     * other. Empty (the default) when the client cannot tell: the factory then treats the client as an identity of
     * its own, shared with nothing another client fetched. The SDK-backed clients answer their S3 client's provider.
     */
    default Optional<IdentityProvider<? extends AwsCredentialsIdentity>> credentials() {
        return Optional.empty();
    }

    /**
     * Releases what this client owns (the SDK-backed clients own nothing: the S3 client they wrap stays its
     * caller's). A {@code StreamFactory} never calls this: whoever created the client closes it, after the
     * factory.
     */
    @Override
    default void close() {}

    /**
     * The object a request addresses: its location, plus what S3 needs to pick or decrypt one version of it, and who
     * asks for it.
     *
     * @param versionId the S3 version id to read, or {@code null} for the current version
     * @param sseCustomerKey the SSE-C key the object was written with, or {@code null}
     * @param credentials the credentials every request for the object is signed with, or {@code null} for the
     *     client's own. An implementation must sign with them when given (the SDK-backed clients set them as the
     *     request's credentials provider): a stream opened with credentials of its own never sends a request under
     *     another's. {@link #toString()} never names them.
     */
    record ObjectAddress(
            S3Location location,
            String versionId,
            SseCustomerKey sseCustomerKey,
            IdentityProvider<? extends AwsCredentialsIdentity> credentials) {

        public ObjectAddress {
            requireNonNull(location, "location is null");
        }

        /** An address whose requests are signed with the client's own credentials. */
        public ObjectAddress(S3Location location, String versionId, SseCustomerKey sseCustomerKey) {
            this(location, versionId, sseCustomerKey, null);
        }

        public ObjectAddress(String bucket, String key) {
            this(new S3Location(bucket, key), null, null, null);
        }

        public String bucket() {
            return location.bucket();
        }

        public String key() {
            return location.key();
        }

        public Optional<String> version() {
            return Optional.ofNullable(versionId);
        }

        public Optional<SseCustomerKey> sseKey() {
            return Optional.ofNullable(sseCustomerKey);
        }

        /** The credentials to sign with, when not the client's own. */
        public Optional<IdentityProvider<? extends AwsCredentialsIdentity>> signingCredentials() {
            return Optional.ofNullable(credentials);
        }

        /** {@code s3://bucket/key}, for messages. */
        public String uri() {
            return location.toString();
        }

        @Override
        public String toString() {
            return versionId == null ? uri() : uri() + "?versionId=" + versionId;
        }
    }

    /**
     * One closed-range GET: either an explicit {@link ByteRange} or the last {@code suffixLength} bytes of the
     * object (a suffix range, which also tells the total length without knowing it beforehand).
     *
     * @param ifMatch the ETag the object must still have, or {@code null} before the ETag is known
     */
    record RangeGetRequest(ObjectAddress object, ByteRange range, long suffixLength, String ifMatch) {

        public RangeGetRequest {
            requireNonNull(object, "object is null");
            if ((range == null) == (suffixLength <= 0)) {
                throw new IllegalArgumentException("Give either a range or a positive suffix length");
            }
        }

        public static RangeGetRequest of(ObjectAddress object, ByteRange range, String ifMatch) {
            return new RangeGetRequest(object, requireNonNull(range, "range is null"), 0, ifMatch);
        }

        public static RangeGetRequest suffix(ObjectAddress object, long suffixLength, String ifMatch) {
            return new RangeGetRequest(object, null, suffixLength, ifMatch);
        }

        public boolean isSuffix() {
            return range == null;
        }

        public Optional<String> expectedEtag() {
            return Optional.ofNullable(ifMatch);
        }

        /** The HTTP {@code Range} header value. */
        public String httpRange() {
            return range != null ? range.toHttpRange() : "bytes=-" + suffixLength;
        }

        /** Where the request points, for error messages. */
        public String describe() {
            return object + " range " + (range != null ? range.toString() : "last " + suffixLength + " bytes");
        }
    }

    /**
     * The answer to a ranged GET: the body as a stream, the range it holds (from {@code Content-Range}) and what
     * it tells about the object: its total length and its ETag. The receiver reads the body and closes it.
     */
    record ObjectContent(InputStream body, ByteRange range, ObjectMetadata metadata) implements Closeable {

        public ObjectContent {
            requireNonNull(body, "body is null");
            requireNonNull(range, "range is null");
            requireNonNull(metadata, "metadata is null");
            if (range.end() > metadata.length()) {
                throw new IllegalArgumentException(
                        "Range " + range + " ends past the object length " + metadata.length());
            }
        }

        @Override
        public void close() throws IOException {
            body.close();
        }

        /**
         * Drops the connection under the body, from any thread, so a read blocked on it fails at once; closing
         * instead would read the rest of the body to reuse the connection. Never throws.
         */
        public void abort() {
            if (body instanceof Abortable abortable) {
                abortable.abort();
            }
            try {
                body.close();
            } catch (IOException | RuntimeException e) {
                // the connection is gone either way; nothing is left to release
            }
        }
    }

    /** What Rangefetch needs to know about one version of an object: its length and its ETag. */
    record ObjectMetadata(long length, String etag) {

        public ObjectMetadata {
            if (length < 0) {
                throw new IllegalArgumentException("Negative object length: " + length);
            }
            requireNonNull(etag, "etag is null");
        }
    }

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
    record ListRequest(
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

    /**
     * One ListObjectsV2 answer.
     *
     * @param objects the keys of the page, in the order the server sent them (UTF-8 binary order on S3)
     * @param commonPrefixes the prefixes keys were rolled up into (empty without a delimiter)
     * @param truncated whether more keys follow ({@code IsTruncated})
     * @param nextContinuationToken where the next page starts; {@code null} when not truncated
     */
    record ListPage(
            List<ListedObject> objects, List<String> commonPrefixes, boolean truncated, String nextContinuationToken) {

        public ListPage {
            objects = List.copyOf(requireNonNull(objects, "objects is null"));
            commonPrefixes = List.copyOf(requireNonNull(commonPrefixes, "commonPrefixes is null"));
            if (truncated && nextContinuationToken == null) {
                throw new IllegalArgumentException("A truncated page needs a continuation token");
            }
        }
    }
}
