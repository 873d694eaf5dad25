package io.rangefetch.it.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.DelegatingS3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * AWS SDK clients pointed at an {@link S3Server}: path-style addressing (a local server has no
 * per-bucket host names), its static credentials and region. Each call builds a new client that the
 * caller closes. Interceptors see every request the client sends; to count requests on the wire for any
 * client, the CRT's included, build it on {@link io.rangefetch.testing.ProxiedS3#proxied()} (a {@link
 * io.rangefetch.it.proxy.ShapingProxy} in front of the server) and read the proxy's ledger.
 */
public final class S3Clients {

    /** Name prefix of the event loop threads of {@link #nettyAsync} clients. */
    public static final String NETTY_THREAD_PREFIX = "rangefetch-it-netty";

    private S3Clients() {}

    /**
     * Async client on the SDK's Netty HTTP client: what most engines hand Rangefetch.
     *
     * <p>Its event loop is ours rather than the SDK's: the SDK closes its own with a fixed two-second
     * quiet period, which every suite would pay, while this one stops within a tenth of that. Either
     * way the loop's threads ({@value #NETTY_THREAD_PREFIX}...) have ended when {@code close()}
     * returns.
     */
    public static S3AsyncClient nettyAsync(S3Server server, ExecutionInterceptor... interceptors) {
        EventLoopGroup eventLoop = new NioEventLoopGroup(2, new DefaultThreadFactory(NETTY_THREAD_PREFIX, true));
        S3AsyncClient client;
        try {
            client = S3AsyncClient.builder()
                    .endpointOverride(server.endpoint())
                    .region(Region.of(server.region()))
                    .credentialsProvider(credentials(server))
                    .forcePathStyle(true)
                    .httpClientBuilder(NettyNioAsyncHttpClient.builder()
                            .eventLoopGroup(SdkEventLoopGroup.create(eventLoop, NioSocketChannel::new)))
                    .overrideConfiguration(withInterceptors(interceptors))
                    .build();
        } catch (RuntimeException | Error e) {
            eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
        return new DelegatingS3AsyncClient(client) {
            @Override
            public void close() {
                try {
                    super.close();
                } finally {
                    // a short quiet period lets the closing channels' last notifications run on the loop
                    eventLoop
                            .shutdownGracefully(100, 5_000, TimeUnit.MILLISECONDS)
                            .syncUninterruptibly();
                }
            }
        };
    }

    /**
     * Async client on the AWS Common Runtime. The CRT sends requests itself, splitting and retrying them
     * below the SDK, so execution interceptors would not see its HTTP requests and none are accepted (a
     * {@link io.rangefetch.it.proxy.ShapingProxy} in front counts them).
     */
    public static S3AsyncClient crtAsync(S3Server server) {
        return S3AsyncClient.crtBuilder()
                .endpointOverride(server.endpoint())
                .region(Region.of(server.region()))
                .credentialsProvider(credentials(server))
                .forcePathStyle(true)
                // the SDK clients' defaults, said out loud (checksumValidationEnabled is deprecated for these):
                // checksums are sent with uploads and checked when a response has one; a ranged GET has none
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_SUPPORTED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_SUPPORTED)
                .build();
    }

    /** Blocking client on the SDK's default sync HTTP client (Apache HttpClient 5). */
    public static S3Client sync(S3Server server, ExecutionInterceptor... interceptors) {
        return sync(server, withInterceptors(interceptors));
    }

    /**
     * A sync client (Apache) with the SDK's own retries off, for a Rangefetch factory: Rangefetch retries and
     * resumes every GET itself, and the two would multiply.
     */
    public static S3Client syncWithoutSdkRetries(S3Server server, ExecutionInterceptor... interceptors) {
        return sync(
                server,
                withInterceptors(interceptors).toBuilder()
                        .retryStrategy(AwsRetryStrategy.doNotRetry())
                        .build());
    }

    /**
     * A sync client (Apache) with the override configuration an engine gave its own: its retry settings
     * above all, which Rangefetch's requests must not inherit.
     */
    public static S3Client syncWith(S3Server server, ClientOverrideConfiguration configuration) {
        return sync(server, configuration);
    }

    private static S3Client sync(S3Server server, ClientOverrideConfiguration configuration) {
        return S3Client.builder()
                .endpointOverride(server.endpoint())
                .region(Region.of(server.region()))
                .credentialsProvider(credentials(server))
                .forcePathStyle(true)
                .httpClientBuilder(Apache5HttpClient.builder())
                .overrideConfiguration(configuration)
                .build();
    }

    private static StaticCredentialsProvider credentials(S3Server server) {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(server.accessKey(), server.secretKey()));
    }

    private static ClientOverrideConfiguration withInterceptors(ExecutionInterceptor... interceptors) {
        return ClientOverrideConfiguration.builder()
                .executionInterceptors(List.of(interceptors))
                .build();
    }
}
