package io.rangefetch.testing.server;

import static java.util.Objects.requireNonNull;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.TlsTrustManagersProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.DelegatingS3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * AWS SDK clients pointed at an {@link S3Server}: path-style addressing (a local server has no
 * per-bucket host names), its static credentials (or the ones a test names, to act as another user),
 * its region, and its {@linkplain S3Server#trustManagers() trust managers} when it serves TLS with a
 * certificate of its own. Each call builds a new client that the caller closes. Interceptors see every
 * request the client sends; to count requests on the wire for any client, the CRT's included, build it
 * on {@link io.rangefetch.testing.ProxiedS3#proxied()} (a {@link io.rangefetch.testing.proxy.ShapingProxy} in
 * front of the server) and read the proxy's ledger.
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
        return nettyAsync(server, credentials(server), interceptors);
    }

    /**
     * {@link #nettyAsync(S3Server, ExecutionInterceptor...)} signing as another identity than the server's
     * own, such as a user {@link MinioServer#addUser} made or {@link MinioServer#assumeRole} credentials.
     */
    public static S3AsyncClient nettyAsync(
            S3Server server, AwsCredentialsProvider credentials, ExecutionInterceptor... interceptors) {
        requireNonNull(server, "server is null");
        requireNonNull(credentials, "credentials is null");
        EventLoopGroup eventLoop = new NioEventLoopGroup(2, new DefaultThreadFactory(NETTY_THREAD_PREFIX, true));
        S3AsyncClient client;
        try {
            NettyNioAsyncHttpClient.Builder http = NettyNioAsyncHttpClient.builder()
                    .eventLoopGroup(SdkEventLoopGroup.create(eventLoop, NioSocketChannel::new));
            trust(server).ifPresent(http::tlsTrustManagersProvider);
            client = S3AsyncClient.builder()
                    .endpointOverride(server.endpoint())
                    .region(Region.of(server.region()))
                    .credentialsProvider(credentials)
                    .forcePathStyle(true)
                    .httpClientBuilder(http)
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
     * {@link io.rangefetch.testing.proxy.ShapingProxy} in front counts them).
     *
     * @throws IllegalArgumentException if the server needs {@linkplain S3Server#trustManagers() trust
     *     managers} of its own: the CRT's TLS takes none (its only option is to trust every certificate,
     *     which a test of TLS must not do)
     */
    public static S3AsyncClient crtAsync(S3Server server) {
        if (server.trustManagers().isPresent()) {
            throw new IllegalArgumentException(
                    "the CRT client cannot be told to trust the certificate of " + server + ": use nettyAsync or sync");
        }
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
        return sync(server, credentials(server), interceptors);
    }

    /**
     * {@link #sync(S3Server, ExecutionInterceptor...)} signing as another identity than the server's own,
     * such as a user {@link MinioServer#addUser} made or {@link MinioServer#assumeRole} credentials.
     */
    public static S3Client sync(
            S3Server server, AwsCredentialsProvider credentials, ExecutionInterceptor... interceptors) {
        return sync(server, credentials, withInterceptors(interceptors));
    }

    /**
     * A sync client (Apache) with the SDK's own retries off, for a Rangefetch factory: Rangefetch retries and
     * resumes every GET itself, and the two would multiply.
     */
    public static S3Client syncWithoutSdkRetries(S3Server server, ExecutionInterceptor... interceptors) {
        return syncWithoutSdkRetries(server, credentials(server), interceptors);
    }

    /**
     * {@link #syncWithoutSdkRetries(S3Server, ExecutionInterceptor...)} signing as another identity than the
     * server's own: what a Rangefetch factory for one user of a shared server is built on.
     */
    public static S3Client syncWithoutSdkRetries(
            S3Server server, AwsCredentialsProvider credentials, ExecutionInterceptor... interceptors) {
        return sync(
                server,
                credentials,
                withInterceptors(interceptors).toBuilder()
                        .retryStrategy(AwsRetryStrategy.doNotRetry())
                        .build());
    }

    /**
     * A sync client (Apache) with the override configuration an engine gave its own: its retry settings
     * above all, which Rangefetch's requests must not inherit.
     */
    public static S3Client syncWith(S3Server server, ClientOverrideConfiguration configuration) {
        return sync(server, credentials(server), configuration);
    }

    private static S3Client sync(
            S3Server server, AwsCredentialsProvider credentials, ClientOverrideConfiguration configuration) {
        requireNonNull(server, "server is null");
        requireNonNull(credentials, "credentials is null");
        return S3Client.builder()
                .endpointOverride(server.endpoint())
                .region(Region.of(server.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(true)
                .httpClientBuilder(apacheHttpClient(server))
                .overrideConfiguration(configuration)
                .build();
    }

    /**
     * The sync HTTP client every client of {@code server} here is built on, trusting what the server says
     * to trust; {@link MinioSts}'s client uses it too.
     */
    static Apache5HttpClient.Builder apacheHttpClient(S3Server server) {
        Apache5HttpClient.Builder http = Apache5HttpClient.builder();
        trust(server).ifPresent(http::tlsTrustManagersProvider);
        return http;
    }

    private static Optional<TlsTrustManagersProvider> trust(S3Server server) {
        // a copy per call: the SDK may keep the array, and no client should see another's changes to it
        return server.trustManagers().map(managers -> () -> managers.clone());
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
