package io.rangefetch.client;

import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.SdkServiceClientConfiguration;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * What the SDK-backed clients share: building SDK requests from ours, reading the answer's headers, and
 * translating SDK errors into the exceptions {@link ObjectClient} promises. The sync and async clients differ
 * only in how they send.
 *
 * <p><b>One SDK attempt per request.</b> Rangefetch retries, backs off, resumes and governs on its own; an SDK
 * client that retried beneath it would multiply its attempts and hide the 503s its governor must see. The client is
 * often the engine's (Iceberg's {@code S3FileIO}, S3A's), built with SDK retries of its own, so every request carries
 * a per-request plugin ({@link #ONE_ATTEMPT}) that sets the SDK's retry strategy to none for that request: the sync
 * and Netty clients honour it. The CRT client retries in native code that a request cannot reach (see {@link
 * SdkAsyncObjectClient}).
 */
final class SdkRequests {
    /**
     * Makes the SDK send the request it rides on once. A request plugin sees the client's configuration as a
     * builder: only the retry strategy is changed, everything else (interceptors, timeouts, signers) stays the
     * client's.
     */
    static final SdkPlugin ONE_ATTEMPT = new OneAttemptPlugin();

    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+)");
    /** A Content-Range over an object of no bytes, as some servers answer a range of an empty object. */
    private static final Pattern EMPTY_OBJECT_RANGE = Pattern.compile("bytes [^/]*/0");

    private SdkRequests() {}

    static GetObjectRequest getObject(RangeGetRequest request) {
        ObjectAddress object = request.object();
        GetObjectRequest.Builder builder = GetObjectRequest.builder()
                .bucket(object.bucket())
                .key(object.key())
                .range(request.httpRange());
        if (request.ifMatch() != null) {
            builder.ifMatch(request.ifMatch());
        }
        SseCustomerKey sse = object.sseCustomerKey();
        if (sse != null) {
            builder.sseCustomerAlgorithm(sse.algorithm())
                    .sseCustomerKey(sse.base64Key())
                    .sseCustomerKeyMD5(sse.base64KeyMd5());
        }
        return builder.versionId(object.versionId())
                .overrideConfiguration(override -> asked(override, object))
                .build();
    }

    private static void oneAttempt(AwsRequestOverrideConfiguration.Builder override) {
        override.addPlugin(ONE_ATTEMPT);
    }

    /** One attempt, signed with the credentials the address names, if it names any (else the client's own). */
    private static void asked(AwsRequestOverrideConfiguration.Builder override, ObjectAddress object) {
        oneAttempt(override);
        if (object.credentials() != null) {
            override.credentialsProvider(object.credentials());
        }
    }

    /** The plugin of {@link #ONE_ATTEMPT}, a class of its own so that it names itself in a client's logs. */
    private static final class OneAttemptPlugin implements SdkPlugin {
        @Override
        public void configureClient(SdkServiceClientConfiguration.Builder config) {
            ClientOverrideConfiguration current = config.overrideConfiguration();
            ClientOverrideConfiguration.Builder override =
                    current == null ? ClientOverrideConfiguration.builder() : current.toBuilder();
            config.overrideConfiguration(
                    override.retryStrategy(AwsRetryStrategy.doNotRetry()).build());
        }

        @Override
        public String toString() {
            return "Rangefetch: one SDK attempt per request";
        }
    }

    /**
     * The credentials provider {@code source} reads off an SDK client, or empty when the client cannot say: a
     * delegating client that does not pass the question on throws, which is no reason to fail.
     */
    static Optional<IdentityProvider<? extends AwsCredentialsIdentity>> credentialsOf(
            Supplier<IdentityProvider<? extends AwsCredentialsIdentity>> source) {
        try {
            return Optional.ofNullable(source.get());
        } catch (UnsupportedOperationException | NullPointerException cannotSay) {
            return Optional.empty();
        }
    }

    static HeadObjectRequest headObject(ObjectAddress object) {
        // HEAD takes exactly the object-selecting fields of a GET: derive them from one place.
        GetObjectRequest get = getObject(RangeGetRequest.of(object, new ByteRange(0, 1), null));
        return HeadObjectRequest.builder()
                .bucket(get.bucket())
                .key(get.key())
                .versionId(get.versionId())
                .sseCustomerAlgorithm(get.sseCustomerAlgorithm())
                .sseCustomerKey(get.sseCustomerKey())
                .sseCustomerKeyMD5(get.sseCustomerKeyMD5())
                .overrideConfiguration(get.overrideConfiguration().orElseThrow())
                .build();
    }

    static ListObjectsV2Request listObjects(ListRequest request) {
        return ListObjectsV2Request.builder()
                .bucket(request.bucket())
                .prefix(request.prefix().isEmpty() ? null : request.prefix())
                .startAfter(request.startAfter())
                .continuationToken(request.continuationToken())
                .maxKeys(request.maxKeys())
                .delimiter(request.delimiter())
                // keys may hold characters XML cannot carry; the SDK decodes what comes back URL-encoded
                .encodingType(EncodingType.URL)
                .overrideConfiguration(SdkRequests::oneAttempt)
                .build();
    }

    static ListPage page(ListRequest request, ListObjectsV2Response response) throws IOException {
        List<ListedObject> objects = new ArrayList<>(response.contents().size());
        for (S3Object object : response.contents()) {
            if (object.key() == null || object.size() == null || object.eTag() == null) {
                throw new IOException(
                        "LIST " + request.describe() + " answered an entry without key, size or ETag: " + object);
            }
            Instant modified = object.lastModified() == null ? Instant.EPOCH : object.lastModified();
            objects.add(new ListedObject(
                    new S3Location(request.bucket(), object.key()), object.size(), object.eTag(), modified));
        }
        List<String> prefixes =
                response.commonPrefixes().stream().map(CommonPrefix::prefix).toList();
        boolean truncated = Boolean.TRUE.equals(response.isTruncated());
        if (truncated && response.nextContinuationToken() == null) {
            throw new IOException(
                    "LIST " + request.describe() + " answered a truncated page without a continuation " + "token");
        }
        return new ListPage(objects, prefixes, truncated, truncated ? response.nextContinuationToken() : null);
    }

    /** Reads range, total length and ETag off a GET answer; closes the body if they are missing. */
    static ObjectContent content(RangeGetRequest request, GetObjectResponse response, InputStream body)
            throws IOException {
        try {
            String etag = response.eTag();
            if (etag == null) {
                throw new IOException("GET " + request.describe() + " answered without an ETag");
            }
            String contentRange = response.contentRange();
            if (contentRange != null
                    && EMPTY_OBJECT_RANGE.matcher(contentRange.trim()).matches()) {
                // an empty object answered as a range of nothing: MinIO says "bytes 0--1/0" to a suffix range
                throw new HttpStatusException("GET " + request.describe() + ": the object is empty", 416, null);
            }
            if (contentRange != null) {
                Matcher matcher = CONTENT_RANGE.matcher(contentRange.trim());
                if (!matcher.matches()) {
                    throw new IOException("GET " + request.describe() + " answered an unreadable Content-Range '"
                            + contentRange + "'");
                }
                long first = Long.parseLong(matcher.group(1));
                long last = Long.parseLong(matcher.group(2));
                long total = Long.parseLong(matcher.group(3));
                return new ObjectContent(body, new ByteRange(first, last + 1), new ObjectMetadata(total, etag));
            }
            // A 200 without Content-Range holds the whole object (a server that ignored the Range header).
            Long contentLength = response.contentLength();
            if (contentLength == null) {
                throw new IOException(
                        "GET " + request.describe() + " answered neither Content-Range nor Content-Length");
            }
            if (contentLength == 0) {
                throw new HttpStatusException("GET " + request.describe() + ": the object is empty", 416, null);
            }
            return new ObjectContent(body, new ByteRange(0, contentLength), new ObjectMetadata(contentLength, etag));
        } catch (IOException | RuntimeException e) {
            closeQuietly(body, e);
            throw e;
        }
    }

    static ObjectMetadata metadata(ObjectAddress object, HeadObjectResponse response) throws IOException {
        if (response.eTag() == null || response.contentLength() == null) {
            throw new IOException("HEAD " + object + " answered without an ETag or a Content-Length");
        }
        return new ObjectMetadata(response.contentLength(), response.eTag());
    }

    /**
     * Turns an SDK failure into the exception {@link ObjectClient} promises. {@code what} says which request
     * failed ("GET s3://b/k range [0, 10)") so the message tells the user where to look.
     */
    static IOException translate(Throwable failure, String what) {
        Throwable cause = unwrap(failure);
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof InterruptedException || cause instanceof AbortedException) {
            InterruptedIOException interrupted = new InterruptedIOException(what + " was interrupted");
            interrupted.initCause(cause);
            return interrupted;
        }
        if (cause instanceof NoSuchKeyException || cause instanceof NoSuchBucketException) {
            return notFound(what, cause);
        }
        if (cause instanceof S3Exception s3) {
            int status = s3.statusCode();
            switch (status) {
                case 404:
                    return notFound(what, cause);
                case 412:
                    return new HttpStatusException(
                            what + " failed: the object changed (412 Precondition Failed)", status, cause);
                case 416:
                    return new HttpStatusException(
                            what + " failed: the range starts past the end of the object (416)", status, cause);
                default:
                    return new HttpStatusException(
                            what + " failed with HTTP " + status + ": " + s3.getMessage(), status, cause);
            }
        }
        return new IOException(what + " failed: " + cause, cause);
    }

    private static IOException notFound(String what, Throwable cause) {
        FileNotFoundException notFound = new FileNotFoundException(what + " failed: no such object (404)");
        notFound.initCause(cause);
        return notFound;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable current = failure;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    static void closeQuietly(InputStream body, Throwable primary) {
        try {
            body.close();
        } catch (IOException | RuntimeException e) {
            primary.addSuppressed(e);
        }
    }
}
