package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import java.io.IOException;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/** An {@link ObjectClient} over the SDK's synchronous {@link S3Client}. The S3 client stays the caller's. */
final class SdkSyncObjectClient implements ObjectClient {
    private final S3Client s3;

    SdkSyncObjectClient(S3Client s3) {
        this.s3 = requireNonNull(s3, "s3 is null");
    }

    /** The S3 client's own credentials provider; empty if the client cannot say (a client that only delegates). */
    @Override
    public Optional<IdentityProvider<? extends AwsCredentialsIdentity>> credentials() {
        return SdkRequests.credentialsOf(() -> s3.serviceClientConfiguration().credentialsProvider());
    }

    @Override
    public ObjectContent get(RangeGetRequest request) throws IOException {
        ResponseInputStream<GetObjectResponse> body;
        try {
            body = s3.getObject(SdkRequests.getObject(request));
        } catch (SdkException e) {
            throw SdkRequests.translate(e, "GET " + request.describe());
        }
        return SdkRequests.content(request, body.response(), body);
    }

    @Override
    public ObjectMetadata head(ObjectAddress object) throws IOException {
        try {
            return SdkRequests.metadata(object, s3.headObject(SdkRequests.headObject(object)));
        } catch (SdkException e) {
            throw SdkRequests.translate(e, "HEAD " + object);
        }
    }

    @Override
    public ListPage list(ListRequest request) throws IOException {
        try {
            return SdkRequests.page(request, s3.listObjectsV2(SdkRequests.listObjects(request)));
        } catch (SdkException e) {
            throw SdkRequests.translate(e, "LIST " + request.describe());
        }
    }
}
