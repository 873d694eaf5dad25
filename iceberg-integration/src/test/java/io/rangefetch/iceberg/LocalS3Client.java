package io.rangefetch.iceberg;

import java.net.URI;
import org.apache.iceberg.util.SerializableSupplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Builds a path-style client for a local endpoint: a named class, not a lambda, so that a FileIO holding it
 * round-trips through Kryo as well as Java serialization, as it would on its way to a Spark executor.
 */
record LocalS3Client(String endpoint, String accessKey, String secretKey) implements SerializableSupplier<S3Client> {
    private static final long serialVersionUID = 1L;

    /** An endpoint nothing listens on: for tests that must not send a request. */
    static LocalS3Client unreachable() {
        return new LocalS3Client("http://127.0.0.1:9", "access", "secret");
    }

    @Override
    public S3Client get() {
        return S3Client.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .forcePathStyle(true)
                .httpClientBuilder(Apache5HttpClient.builder())
                .build();
    }
}
