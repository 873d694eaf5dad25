package io.rangefetch.hadoop;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.auth.delegation.EncryptionSecrets;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.client.config.SdkAdvancedClientOption;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.apache.ProxyConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.RequestPayer;

/**
 * GETs for a {@link RangefetchS3AFileSystem} on Hadoop 3.3.x, whose S3A client is AWS SDK v1's, which Rangefetch's
 * requests cannot go through: an SDK v2 client of the file system's own, built from S3A's settings for its bucket
 * (the configuration S3A keeps, per-bucket options folded in) and signed with S3A's own credential chain
 * ({@link SharedS3ACredentials}: its providers and delegation tokens).
 *
 * <p><b>What carries over:</b> {@code fs.s3a.endpoint} (with {@code fs.s3a.connection.ssl.enabled} for an endpoint
 * without a scheme), {@code fs.s3a.endpoint.region} (else the region an AWS endpoint names, else us-east-1, with
 * cross-region access when no endpoint is set, as S3A's global bucket access), {@code fs.s3a.path.style.access},
 * {@code fs.s3a.requester.pays.enabled}, SSE-C ({@code fs.s3a.encryption.*}: the key goes on every GET), the proxy
 * ({@code fs.s3a.proxy.host}, {@code .port}, {@code .ssl.enabled}, {@code .username}, {@code .password}), the
 * connection pool and timeouts ({@code fs.s3a.connection.maximum}, {@code .timeout}, {@code .establish.timeout}) and
 * {@code fs.s3a.user.agent.prefix}. SSE-S3 and SSE-KMS need nothing on a GET.
 *
 * <p><b>What does not</b> ({@link #unsupported} answers why, and the file system then reads with S3A's streams):
 * access points ({@code fs.s3a.accesspoint.arn}), custom signers ({@code fs.s3a.signing-algorithm},
 * {@code fs.s3a.s3.signing-algorithm}) and a custom client factory ({@code fs.s3a.s3.client.factory.impl}). Not
 * carried and not refused: S3A's auditing (its v1 request handlers see none of these GETs), its retry settings
 * (Rangefetch retries by its own), NTLM proxy domains.
 *
 * <p>Thread-safe: every field is fixed at construction; the SDK client is.
 */
final class S3ASettingsClientRoute implements GetRoute {
    /** S3A 3.3's default client factory: the only one whose settings this route knows how to copy. */
    private static final String DEFAULT_CLIENT_FACTORY = "org.apache.hadoop.fs.s3a.DefaultS3ClientFactory";

    /** The region in an AWS regional S3 endpoint's host: s3.eu-west-1.amazonaws.com, s3-eu-west-1..., dualstack. */
    private static final Pattern AWS_REGIONAL_HOST = Pattern.compile(
            "^(?:.*\\.)?s3[.-](?:dualstack\\.)?([a-z]{2}(?:-[a-z]+)+-\\d+)\\.amazonaws\\.com(?:\\.cn)?$");

    private final String bucket;
    private final String uri;
    private final S3Client client;
    private final SharedS3ACredentials credentials;
    private final boolean requesterPays;
    private final String sseCustomerKey;
    private final String sseCustomerKeyMd5;
    private volatile boolean closed;

    private S3ASettingsClientRoute(
            String bucket,
            String uri,
            S3Client client,
            SharedS3ACredentials credentials,
            boolean requesterPays,
            String sseKey) {
        this.bucket = bucket;
        this.uri = uri;
        this.client = client;
        this.credentials = credentials;
        this.requesterPays = requesterPays;
        this.sseCustomerKey = sseKey;
        this.sseCustomerKeyMd5 = sseKey == null ? null : md5OfKey(sseKey);
    }

    /**
     * Why S3A's settings for a bucket cannot be carried to an SDK v2 client of Rangefetch's, or empty when they can.
     */
    static Optional<String> unsupported(Configuration conf) {
        if (!conf.getTrimmed("fs.s3a.accesspoint.arn", "").isEmpty()) {
            return Optional.of("it reads through an access point (fs.s3a.accesspoint.arn)");
        }
        for (String signer : new String[] {"fs.s3a.signing-algorithm", "fs.s3a.s3.signing-algorithm"}) {
            if (!conf.getTrimmed(signer, "").isEmpty()) {
                return Optional.of("it signs with a custom signer (" + signer + ")");
            }
        }
        String factory = conf.getTrimmed("fs.s3a.s3.client.factory.impl", DEFAULT_CLIENT_FACTORY);
        if (!factory.equals(DEFAULT_CLIENT_FACTORY)) {
            return Optional.of("it builds its S3 client with " + factory + " (fs.s3a.s3.client.factory.impl)");
        }
        return Optional.empty();
    }

    /**
     * The route of {@code fileSystem}, an initialized S3A whose settings {@link #unsupported} accepts. Needs the SDK
     * v2 {@code apache-client} module on the class path.
     */
    static S3ASettingsClientRoute of(S3AFileSystem fileSystem) throws IOException {
        Configuration conf = fileSystem.getConf();
        SharedS3ACredentials credentials = SharedS3ACredentials.share(fileSystem);
        try {
            S3Client client = buildClient(conf, credentials);
            return new S3ASettingsClientRoute(
                    fileSystem.getBucket(),
                    fileSystem.getUri().toString(),
                    client,
                    credentials,
                    conf.getBoolean("fs.s3a.requester.pays.enabled", false),
                    sseCustomerKey(fileSystem.getEncryptionSecrets()));
        } catch (RuntimeException | LinkageError e) {
            credentials.close();
            throw e;
        }
    }

    /** The SSE-C key GETs must carry, or null when the bucket is not encrypted with a customer key. */
    private static String sseCustomerKey(EncryptionSecrets secrets) throws IOException {
        if (secrets == null || !"SSE_C".equals(secrets.getEncryptionMethod().name())) {
            return null;
        }
        if (!secrets.hasEncryptionKey()) {
            throw new IOException("SSE-C is set (fs.s3a.encryption.algorithm) without a key (fs.s3a.encryption.key)");
        }
        return secrets.getEncryptionKey();
    }

    private static String md5OfKey(String base64Key) {
        try {
            byte[] digest =
                    MessageDigest.getInstance("MD5").digest(Base64.getDecoder().decode(base64Key));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5, which SSE-C needs", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the SSE-C key (fs.s3a.encryption.key) is not base64", e);
        }
    }

    /** An SDK v2 client with S3A's endpoint, region, addressing, proxy, pool and timeouts, signed by {@code credentials}. */
    static S3Client buildClient(Configuration conf, AwsCredentialsProvider credentials) {
        Endpoint endpoint = endpoint(conf);
        ApacheHttpClient.Builder http = ApacheHttpClient.builder()
                .maxConnections(conf.getInt("fs.s3a.connection.maximum", 96))
                .socketTimeout(duration(conf, "fs.s3a.connection.timeout", 200_000))
                .connectionTimeout(duration(conf, "fs.s3a.connection.establish.timeout", 50_000));
        proxy(conf, endpoint).ifPresent(http::proxyConfiguration);
        S3ClientBuilder builder = S3Client.builder()
                .credentialsProvider(credentials)
                .region(endpoint.region())
                .forcePathStyle(conf.getBoolean("fs.s3a.path.style.access", false))
                .crossRegionAccessEnabled(endpoint.crossRegion())
                .httpClientBuilder(http);
        endpoint.override().ifPresent(builder::endpointOverride);
        String userAgentPrefix = conf.getTrimmed("fs.s3a.user.agent.prefix", "");
        if (!userAgentPrefix.isEmpty()) {
            builder.overrideConfiguration(
                    o -> o.putAdvancedOption(SdkAdvancedClientOption.USER_AGENT_PREFIX, userAgentPrefix));
        }
        return builder.build();
    }

    /**
     * Where S3A 3.3 sends requests: the endpoint to override the SDK's with (none for AWS's global endpoint), the
     * region to sign for, and whether a bucket of another region is followed (S3A's global bucket access).
     */
    record Endpoint(Optional<URI> override, Region region, boolean crossRegion) {}

    static Endpoint endpoint(Configuration conf) {
        String configured = conf.getTrimmed("fs.s3a.endpoint", "");
        String region = conf.getTrimmed("fs.s3a.endpoint.region", "");
        if (configured.isEmpty()
                || configured.equals("s3.amazonaws.com")
                || configured.equals("s3-external-1.amazonaws.com")) {
            return new Endpoint(Optional.empty(), Region.of(region.isEmpty() ? "us-east-1" : region), true);
        }
        boolean ssl = conf.getBoolean("fs.s3a.connection.ssl.enabled", true);
        URI uri;
        try {
            uri = new URI(configured.contains("://") ? configured : (ssl ? "https://" : "http://") + configured);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("fs.s3a.endpoint is not a host or URL: " + configured, e);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("fs.s3a.endpoint is not a host or URL: " + configured);
        }
        if (region.isEmpty()) {
            Matcher regional = AWS_REGIONAL_HOST.matcher(uri.getHost().toLowerCase(Locale.ROOT));
            region = regional.matches() ? regional.group(1) : "us-east-1";
        }
        return new Endpoint(Optional.of(uri), Region.of(region), false);
    }

    private static Optional<ProxyConfiguration> proxy(Configuration conf, Endpoint endpoint) {
        String host = conf.getTrimmed("fs.s3a.proxy.host", "");
        if (host.isEmpty()) {
            return Optional.empty();
        }
        boolean secured = conf.getBoolean("fs.s3a.proxy.ssl.enabled", false);
        int port = conf.getInt("fs.s3a.proxy.port", -1);
        if (port < 0) {
            // as S3A: the port of the scheme the requests use
            port = endpoint.override().map(URI::getScheme).orElse("https").equals("http") ? 80 : 443;
        }
        ProxyConfiguration.Builder proxy = ProxyConfiguration.builder()
                .endpoint(URI.create((secured ? "https://" : "http://") + host + ":" + port))
                .useSystemPropertyValues(false)
                .useEnvironmentVariableValues(false);
        String user = conf.getTrimmed("fs.s3a.proxy.username", "");
        char[] password = password(conf, "fs.s3a.proxy.password");
        if (user.isEmpty() != (password == null)) {
            throw new IllegalArgumentException(
                    "fs.s3a.proxy.username and fs.s3a.proxy.password must be set together, or neither");
        }
        if (!user.isEmpty()) {
            proxy.username(user).password(new String(password));
        }
        return Optional.of(proxy.build());
    }

    /** A secret as S3A reads it: from Hadoop's credential providers, else the configuration. */
    private static char[] password(Configuration conf, String key) {
        try {
            char[] found = conf.getPassword(key);
            return found == null || found.length == 0 ? null : found;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + key + " from the credential providers: " + e, e);
        }
    }

    /** A timeout given in milliseconds (Hadoop 3.3's form) or with a unit (3.4's, "200s"). */
    private static Duration duration(Configuration conf, String key, long defaultMillis) {
        return Duration.ofMillis(conf.getTimeDuration(key, defaultMillis, TimeUnit.MILLISECONDS));
    }

    @Override
    public GetObjectRequest.Builder newGetRequestBuilder(String key) {
        GetObjectRequest.Builder request =
                GetObjectRequest.builder().bucket(bucket).key(key);
        if (requesterPays) {
            request.requestPayer(RequestPayer.REQUESTER);
        }
        if (sseCustomerKey != null) {
            request.sseCustomerAlgorithm("AES256")
                    .sseCustomerKey(sseCustomerKey)
                    .sseCustomerKeyMD5(sseCustomerKeyMd5);
        }
        return request;
    }

    @Override
    public S3Client client() throws IOException {
        if (closed) {
            throw new IOException("Rangefetch's client of " + uri + " is closed: the file system is closed");
        }
        return client;
    }

    @Override
    public void close() {
        closed = true;
        try {
            client.close();
        } finally {
            credentials.close();
        }
    }

    @Override
    public String toString() {
        return "S3ASettingsClientRoute[" + uri + (sseCustomerKey == null ? "" : ", SSE-C") + "]";
    }
}
