package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * An {@link ObjectClient} over the SDK's {@link S3AsyncClient}, built either with the Netty HTTP client
 * ({@code S3AsyncClient.builder()}) or with the CRT ({@code S3AsyncClient.crtBuilder()}). The body is handed
 * over as a blocking stream as soon as the response headers arrive, so the fetch thread copies bytes while the
 * rest of the body is still on the wire. The S3 client stays the caller's.
 *
 * <p>Every request is sent with one SDK attempt (see {@code SdkRequests}), except through the CRT client: it retries
 * in native code that no request setting reaches, and reads 0 retries as its default. Such a client is used all the
 * same, with one warning per JVM naming what to set.
 */
final class SdkAsyncObjectClient implements ObjectClient {
    private static final Logger LOG = LoggerFactory.getLogger(SdkAsyncObjectClient.class);
    private static final AtomicBoolean CRT_WARNED = new AtomicBoolean();

    private final S3AsyncClient s3;

    SdkAsyncObjectClient(S3AsyncClient s3) {
        this.s3 = requireNonNull(s3, "s3 is null");
        if (isCrt(s3) && CRT_WARNED.compareAndSet(false, true)) {
            LOG.warn(
                    "The S3 client given to Rangefetch is the CRT-based one ({}), which retries in native code that a "
                            + "request cannot turn off: each Rangefetch attempt may be sent several times, and its backoff "
                            + "and throttle governor see only the last answer. Build it with .retryConfiguration("
                            + "S3CrtRetryConfiguration.builder().numRetries(1).build()), the fewest it makes, or give "
                            + "Rangefetch a Netty or sync client (every request of theirs makes one attempt).",
                    s3.getClass().getName());
        }
    }

    /** Whether {@code s3} is the SDK's CRT-based client, whose retries no request override reaches. */
    static boolean isCrt(S3AsyncClient s3) {
        return s3.getClass().getName().contains(".crt.");
    }

    /** The S3 client's own credentials provider; empty if the client cannot say (a client that only delegates). */
    @Override
    public Optional<IdentityProvider<? extends AwsCredentialsIdentity>> credentials() {
        return SdkRequests.credentialsOf(() -> s3.serviceClientConfiguration().credentialsProvider());
    }

    @Override
    public ObjectContent get(RangeGetRequest request) throws IOException {
        String what = "GET " + request.describe();
        ResponseInputStream<GetObjectResponse> body = await(
                s3.getObject(SdkRequests.getObject(request), AsyncResponseTransformer.toBlockingInputStream()), what);
        return SdkRequests.content(request, body.response(), body);
    }

    @Override
    public ObjectMetadata head(ObjectAddress object) throws IOException {
        String what = "HEAD " + object;
        return SdkRequests.metadata(object, await(s3.headObject(SdkRequests.headObject(object)), what));
    }

    @Override
    public ListPage list(ListRequest request) throws IOException {
        String what = "LIST " + request.describe();
        return SdkRequests.page(request, await(s3.listObjectsV2(SdkRequests.listObjects(request)), what));
    }

    private static <T> T await(CompletableFuture<T> future, String what) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException(what + " was interrupted");
            interrupted.initCause(e);
            throw interrupted;
        } catch (ExecutionException e) {
            throw SdkRequests.translate(e, what);
        }
    }
}
