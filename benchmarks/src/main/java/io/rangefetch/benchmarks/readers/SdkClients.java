package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3CrtAsyncClientBuilder;
import software.amazon.awssdk.services.s3.crt.S3CrtRetryConfiguration;

/**
 * The SDK's clients as their users build them, pointed at a {@link S3Target}: its endpoint, region, static
 * credentials and addressing style, every other setting the SDK's default.
 *
 * <p>Retries are the one difference, for Rangefetch's clients only: Rangefetch retries a GET itself (with
 * backoff, resuming a cut body, and feeding 503s to its throttle governor), so its README hands it clients
 * whose own retries are off; an SDK retry under it would hide the 503s from the governor and multiply the
 * attempts. The peers keep the SDK's retries, as their users run them ({@link #syncWithDefaults}). The CRT client cannot be told not to
 * retry: its native retry strategy reads 0 retries as "the default, 5", so the fewest it makes is one.
 * The caller closes the clients.
 */
public final class SdkClients {

    /** What the CRT client is given for "no retries": the least its native strategy accepts. */
    static final int CRT_FEWEST_RETRIES = 1;

    private SdkClients() {}

    /** The SDK's default async client, Netty with its own event loop, with the SDK's retries off. */
    static S3AsyncClient nettyWithoutRetries(S3Target target) {
        requireNonNull(target, "target is null");
        return S3AsyncClient.builder()
                .endpointOverride(target.endpoint())
                .region(Region.of(target.region()))
                .credentialsProvider(credentials(target))
                .forcePathStyle(target.pathStyle())
                .overrideConfiguration(noRetries())
                // named although it is the default, so another async HTTP client on the classpath cannot win
                .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .build();
    }

    /**
     * The SDK's default sync client, the Apache HTTP client with pooled connections and blocking streams,
     * with the SDK's retries off.
     */
    static S3Client syncWithoutRetries(S3Target target) {
        return syncBuilder(target).overrideConfiguration(noRetries()).build();
    }

    /** The SDK's default sync client (Apache) with every default, retries too, as engines' users build it. */
    public static S3Client syncWithDefaults(S3Target target) {
        return syncBuilder(target).build();
    }

    private static S3ClientBuilder syncBuilder(S3Target target) {
        requireNonNull(target, "target is null");
        return S3Client.builder()
                .endpointOverride(target.endpoint())
                .region(Region.of(target.region()))
                .credentialsProvider(credentials(target))
                .forcePathStyle(target.pathStyle())
                // named although it is the default, so another sync HTTP client on the classpath cannot win
                .httpClientBuilder(ApacheHttpClient.builder());
    }

    /** The AWS Common Runtime's S3 client with the fewest retries it allows ({@value #CRT_FEWEST_RETRIES}). */
    static S3AsyncClient crtWithFewestRetries(S3Target target) {
        return crtBuilder(target)
                .retryConfiguration(S3CrtRetryConfiguration.builder()
                        .numRetries(CRT_FEWEST_RETRIES)
                        .build())
                .build();
    }

    /** The CRT client's builder with the SDK's defaults, for a caller that sets what its own users set. */
    static S3CrtAsyncClientBuilder crtBuilder(S3Target target) {
        requireNonNull(target, "target is null");
        return S3AsyncClient.crtBuilder()
                .endpointOverride(target.endpoint())
                .region(Region.of(target.region()))
                .credentialsProvider(credentials(target))
                .forcePathStyle(target.pathStyle());
    }

    private static ClientOverrideConfiguration noRetries() {
        return ClientOverrideConfiguration.builder()
                .retryStrategy(AwsRetryStrategy.doNotRetry())
                .build();
    }

    private static StaticCredentialsProvider credentials(S3Target target) {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(target.accessKey(), target.secretKey()));
    }
}
