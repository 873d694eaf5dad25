package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3CrtAsyncClientBuilder;

/**
 * The SDK's async clients as their users build them, pointed at a {@link S3Target}: its endpoint, region,
 * static credentials and addressing style, every other setting the SDK's default. The caller closes them.
 */
final class SdkClients {

    private SdkClients() {}

    /** The SDK's default async client: Netty, with its own event loop. */
    static S3AsyncClient netty(S3Target target) {
        requireNonNull(target, "target is null");
        return S3AsyncClient.builder()
                .endpointOverride(target.endpoint())
                .region(Region.of(target.region()))
                .credentialsProvider(credentials(target))
                .forcePathStyle(target.pathStyle())
                // named although it is the default, so another async HTTP client on the classpath cannot win
                .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .build();
    }

    /** The AWS Common Runtime's S3 client, with the SDK's defaults. */
    static S3AsyncClient crt(S3Target target) {
        return crtBuilder(target).build();
    }

    /** {@link #crt}'s builder, for a caller that sets what its own users set. */
    static S3CrtAsyncClientBuilder crtBuilder(S3Target target) {
        requireNonNull(target, "target is null");
        return S3AsyncClient.crtBuilder()
                .endpointOverride(target.endpoint())
                .region(Region.of(target.region()))
                .credentialsProvider(credentials(target))
                .forcePathStyle(target.pathStyle());
    }

    private static StaticCredentialsProvider credentials(S3Target target) {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(target.accessKey(), target.secretKey()));
    }
}
