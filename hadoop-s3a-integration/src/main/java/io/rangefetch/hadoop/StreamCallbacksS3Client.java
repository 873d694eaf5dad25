package io.rangefetch.hadoop;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The S3 client Rangefetch's factory sends through: an {@link S3Client} of one operation, {@code GetObject},
 * which hands each request to the S3A {@link Sender} of a stream open on that object. Rangefetch builds its
 * {@code GetObjectRequest} (range, {@code If-Match}, version id); here S3A's request builder takes over
 * ({@link Sender#newGetRequestBuilder}: bucket, SSE-C key, requester-pays, audit span) and
 * only the range, {@code If-Match}, version id and Rangefetch's per-request plugins (one SDK attempt: S3A's client
 * retries by its own settings otherwise) are copied onto it, then S3A's {@code getObject} sends it once. SDK
 * exceptions pass through untouched, so Rangefetch's client translates them as for any SDK client.
 *
 * <p><b>Why a registry.</b> One Rangefetch factory serves whole file systems (every one with the same identity and
 * settings, {@link SharedS3AFactory}: so every registered stream signs as the same principal, with the same SSE-C
 * key) while S3A's callbacks belong to one stream (its audit span, closed with it). A GET
 * names only its object, and may be a prefetch running on a Rangefetch thread, so it is sent with the callbacks of
 * the most recently opened stream still open on that bucket and key. An object with no open stream has nobody to
 * charge the request to: the GET fails (a prefetch of a closed stream is cancelled anyway). Thread-safe: the
 * registry is a concurrent map of copy-on-write lists.
 *
 * <p>HEAD is refused: S3A always tells a stream its length and ETag, so Rangefetch never needs one here.
 */
final class StreamCallbacksS3Client implements S3Client {
    private final Map<String, List<Sender>> openStreams = new ConcurrentHashMap<>();

    /**
     * How one open stream sends a GET the way its file system would: S3A's request builder (bucket, SSE-C key,
     * requester-pays) and S3A's client, in the stream's audit span. The stream factory's streams send through their
     * S3A callbacks ({@code ObjectInputStreamCallbacks}, Hadoop 3.4.2 and later); {@link RangefetchS3AFileSystem}'s
     * through the file system's request factory and client.
     */
    interface Sender {
        /** A request for {@code key} as S3A builds it; the range, {@code If-Match} and version are set after. */
        GetObjectRequest.Builder newGetRequestBuilder(String key);

        /** Sends the request once; SDK failures pass through unchecked. */
        ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest request) throws IOException;
    }

    /** Makes {@code callbacks} the ones GETs of {@code bucket}'s {@code key} use until {@link #unregister}. */
    void register(String bucket, String key, Sender callbacks) {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(key, "key is null");
        requireNonNull(callbacks, "callbacks is null");
        openStreams.compute(object(bucket, key), (k, list) -> {
            List<Sender> updated = list == null ? new ArrayList<>(1) : new ArrayList<>(list);
            updated.add(callbacks);
            return List.copyOf(updated);
        });
    }

    /** Forgets {@code callbacks} for {@code key}; harmless when they were never registered or already removed. */
    void unregister(String bucket, String key, Sender callbacks) {
        openStreams.computeIfPresent(object(bucket, key), (k, list) -> {
            List<Sender> updated = new ArrayList<>(list);
            updated.remove(callbacks);
            return updated.isEmpty() ? null : List.copyOf(updated);
        });
    }

    /** A bucket and key as one string: a bucket's name holds no '/'. */
    private static String object(String bucket, String key) {
        return bucket + "/" + key;
    }

    /** How many streams are registered, over all keys (for tests: closed streams leave none behind). */
    int registeredStreams() {
        return openStreams.values().stream().mapToInt(List::size).sum();
    }

    @Override
    public ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest request) {
        List<Sender> registered = openStreams.get(object(request.bucket(), request.key()));
        if (registered == null || registered.isEmpty()) {
            throw SdkClientException.create("No S3A stream is open on s3a://" + request.bucket() + "/" + request.key()
                    + " to send its GET " + request.range() + " through; reopen the file");
        }
        Sender callbacks = registered.get(registered.size() - 1);
        GetObjectRequest.Builder builder =
                callbacks.newGetRequestBuilder(request.key()).range(request.range());
        if (request.ifMatch() != null) {
            builder.ifMatch(request.ifMatch());
        }
        if (request.versionId() != null) {
            builder.versionId(request.versionId());
        }
        keepPlugins(request, builder);
        try {
            return callbacks.getObject(builder.build());
        } catch (IOException e) {
            // S3A raises IOException only before sending (creating its client); SDK failures pass unchecked
            throw SdkClientException.create(
                    "S3A could not send GET s3a://" + request.bucket() + "/" + request.key() + " " + request.range()
                            + ": " + e,
                    e);
        }
    }

    /**
     * Adds the per-request plugins of Rangefetch's request (the one that makes S3A's client send it once, since
     * retrying is Rangefetch's) to S3A's, keeping whatever override S3A's builder set.
     */
    private static void keepPlugins(GetObjectRequest request, GetObjectRequest.Builder builder) {
        List<SdkPlugin> plugins = request.overrideConfiguration()
                .map(AwsRequestOverrideConfiguration::plugins)
                .orElse(List.of());
        if (plugins.isEmpty()) {
            return;
        }
        AwsRequestOverrideConfiguration current = builder.overrideConfiguration();
        AwsRequestOverrideConfiguration.Builder override =
                current == null ? AwsRequestOverrideConfiguration.builder() : current.toBuilder();
        plugins.forEach(override::addPlugin);
        builder.overrideConfiguration(override.build());
    }

    @Override
    public HeadObjectResponse headObject(HeadObjectRequest request) {
        throw SdkClientException.create("HEAD s3a://" + request.bucket() + "/" + request.key() + " refused: an S3A"
                + " stream knows its object's length and ETag, so Rangefetch never needs one");
    }

    @Override
    public String serviceName() {
        return SERVICE_NAME;
    }

    /** Nothing to release: the S3 client behind the callbacks is S3A's. */
    @Override
    public void close() {}
}
