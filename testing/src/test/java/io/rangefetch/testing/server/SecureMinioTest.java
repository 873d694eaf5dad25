package io.rangefetch.testing.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.cert.CertificateParsingException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link MinioServer#startTls()} and its users: what later suites rely on to check that one identity never
 * gets another's bytes, and to read SSE-C objects (which MinIO serves only over TLS). Every status and error
 * code asserted here is what MinIO answered when this was written.
 */
class SecureMinioTest {

    private static final String READER = "reader-a";
    private static final String READER_SECRET = "reader-a-secret-key";
    private static final String BUCKET_A = "bucket-a"; // S3 (and the SDK) want at least 3 characters
    private static final String BUCKET_B = "bucket-b";
    private static final Duration GRACE = Duration.ofSeconds(10);
    private static final SecureRandom RANDOM = new SecureRandom();

    private static ThreadLeakChecker threads;
    private static MinioServer minio;
    private static S3Client root;

    @BeforeAll
    static void startTlsMinioWithTwoBucketsAndAReaderOfOne() throws IOException {
        assumeTrue(MinioServer.binaryAvailable(), "no minio binary");
        assumeTrue(MinioServer.adminAvailable(), "no rangefetch-minio-admin binary");
        threads = ThreadLeakChecker.snapshot();
        minio = MinioServer.startTls();
        root = S3Clients.sync(minio);
        for (String bucket : List.of(BUCKET_A, BUCKET_B)) {
            root.createBucket(create -> create.bucket(bucket));
            root.putObject(put -> put.bucket(bucket).key("object"), RequestBody.fromString("in " + bucket));
        }
        minio.addUser(READER, READER_SECRET, List.of(BUCKET_A));
    }

    @AfterAll
    static void stopEverything() {
        if (threads == null) {
            return; // skipped: nothing started
        }
        try {
            if (root != null) {
                root.close();
            }
        } finally {
            if (minio != null) {
                minio.close();
            }
        }
        // every thread, not a prefix: the SDK's HTTP clients, Netty's loops and the JDK's TLS all count
        threads.assertNoNewThreads("", GRACE);
    }

    @Test
    void servesHttpsWithADayLongCertificateForTheLoopbackNames() throws CertificateParsingException {
        assertThat(minio.endpoint().toString()).startsWith("https://127.0.0.1:");
        assertThat(minio.certificate().getSubjectAlternativeNames())
                .containsExactlyInAnyOrder(List.of(7, "127.0.0.1"), List.of(2, "localhost"));
        assertThat(minio.certificate().getNotAfter().toInstant())
                .isBetween(
                        Instant.now().plus(Duration.ofHours(23)), Instant.now().plus(Duration.ofDays(1)));
        assertThat(minio.workDirectory().resolve("certs")).isDirectoryContaining("glob:**/public.crt");
        assertThat(minio.workDirectory().resolve("certs")).isDirectoryContaining("glob:**/private.key");
        assertThat(minio.trustStore().type()).isEqualTo("PKCS12");
        assertThat(minio.trustStore().path()).isRegularFile();
    }

    @Test
    void aClientThatTrustsOnlyTheJdkAuthoritiesIsRefused() {
        try (S3Client untrusting = clientWithoutTrustManagers(Apache5HttpClient.builder())) {
            assertThatThrownBy(untrusting::listBuckets)
                    .isInstanceOf(SdkClientException.class)
                    .hasMessageContaining("PKIX path building failed");
        }
    }

    @Test
    void everyClientFlavourThatTakesTrustManagersReachesIt() {
        try (S3AsyncClient netty = S3Clients.nettyAsync(minio);
                S3Client withoutRetries = S3Clients.syncWithoutSdkRetries(minio)) {
            assertThat(netty.getObject(get -> get.bucket(BUCKET_A).key("object"), AsyncResponseTransformer.toBytes())
                            .join()
                            .asUtf8String())
                    .isEqualTo("in " + BUCKET_A);
            assertThat(withoutRetries.listBuckets().buckets()).hasSize(2);
        }
        S3Server view = minio.reachedAt(minio.endpoint());
        assertThat(view.trustManagers()).isPresent();
        try (S3Client throughTheView = S3Clients.sync(view)) {
            assertThat(throughTheView.listBuckets().buckets()).hasSize(2);
        }
        assertThatThrownBy(() -> S3Clients.crtAsync(minio))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CRT");
    }

    @Test
    void aReaderGetsTheObjectsOfItsBucket() {
        try (S3Client reader = S3Clients.sync(minio, credentials(READER, READER_SECRET))) {
            assertThat(reader.getObjectAsBytes(get -> get.bucket(BUCKET_A).key("object"))
                            .asUtf8String())
                    .isEqualTo("in " + BUCKET_A);
            assertThat(reader.listObjectsV2(list -> list.bucket(BUCKET_A)).contents())
                    .extracting(S3Object::key)
                    .contains("object");
        }
    }

    @Test
    void aReaderIsRefusedAnotherBucketAndEveryWrite() {
        try (S3Client reader = S3Clients.syncWithoutSdkRetries(minio, credentials(READER, READER_SECRET))) {
            assertRefused(
                    () -> reader.getObjectAsBytes(get -> get.bucket(BUCKET_B).key("object")), 403, "AccessDenied");
            assertRefused(() -> reader.listObjectsV2(list -> list.bucket(BUCKET_B)), 403, "AccessDenied");
            assertRefused(
                    () -> reader.putObject(put -> put.bucket(BUCKET_A).key("written"), RequestBody.fromString("no")),
                    403,
                    "AccessDenied");
        }
    }

    @Test
    void aUserWithNoBucketsMayReadNothing() throws IOException {
        minio.addUser("nobody", "nobody-secret-key", List.of());

        try (S3Client nobody = S3Clients.sync(minio, credentials("nobody", "nobody-secret-key"))) {
            assertRefused(
                    () -> nobody.getObjectAsBytes(get -> get.bucket(BUCKET_A).key("object")), 403, "AccessDenied");
        }
    }

    @Test
    void aReaderOfTwoBucketsReadsBoth() throws IOException {
        minio.addUser("reader-ab", "reader-ab-secret", List.of(BUCKET_B, BUCKET_A));

        try (S3Client reader = S3Clients.sync(minio, credentials("reader-ab", "reader-ab-secret"))) {
            for (String bucket : List.of(BUCKET_A, BUCKET_B)) {
                assertThat(reader.getObjectAsBytes(get -> get.bucket(bucket).key("object"))
                                .asUtf8String())
                        .isEqualTo("in " + bucket);
            }
        }
    }

    @Test
    void anAdminFailureQuotesItsOutputWithoutTheSecrets() {
        // MinIO keeps ',' and '=' out of access keys, so the helper's add-user fails, and says why
        assertThatThrownBy(() -> minio.addUser("bad,user", "bad-user-secret", List.of(BUCKET_A)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("MINIO_ADMIN_SECRET_KEY=" + MinioAdmin.REDACTED)
                .hasMessageContaining("MINIO_ADMIN_USER_SECRET_KEY=" + MinioAdmin.REDACTED + " rangefetch-minio-admin")
                .hasMessageContaining(" add-user bad,user` exited with 1")
                .hasMessageContaining("XMinioAdminInvalidAccessKey")
                .hasMessageNotContaining("bad-user-secret")
                .hasMessageNotContaining(MinioServer.SECRET_KEY);
        assertThatThrownBy(() -> minio.addUser("short", "seven77", List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("seven77");
        assertThatThrownBy(() -> minio.addUser("quoting", "quoting-secret", List.of("a\",\"*")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a bucket name");
    }

    @Test
    void anSseCObjectReadsBackOnlyWithItsKey() throws NoSuchAlgorithmException {
        SseCKey key = SseCKey.random();
        root.putObject(
                put -> put.bucket(BUCKET_A)
                        .key("sse-c")
                        .sseCustomerAlgorithm("AES256")
                        .sseCustomerKey(key.base64())
                        .sseCustomerKeyMD5(key.md5()),
                RequestBody.fromString("encrypted with a customer key"));

        assertThat(root.getObjectAsBytes(get -> get.bucket(BUCKET_A)
                                .key("sse-c")
                                .sseCustomerAlgorithm("AES256")
                                .sseCustomerKey(key.base64())
                                .sseCustomerKeyMD5(key.md5()))
                        .asUtf8String())
                .isEqualTo("encrypted with a customer key");
        try (S3Client once = S3Clients.syncWithoutSdkRetries(minio)) {
            assertRefused(
                    () -> once.getObjectAsBytes(get -> get.bucket(BUCKET_A).key("sse-c")), 400, "InvalidRequest");
            SseCKey wrongKey = SseCKey.random();
            assertRefused(
                    () -> once.getObjectAsBytes(get -> get.bucket(BUCKET_A)
                            .key("sse-c")
                            .sseCustomerAlgorithm("AES256")
                            .sseCustomerKey(wrongKey.base64())
                            .sseCustomerKeyMD5(wrongKey.md5())),
                    403,
                    "AccessDenied");
        }
    }

    @Test
    void assumeRoleGivesTheReaderTemporaryCredentialsWithItsRights() {
        AwsSessionCredentials temporary = minio.assumeRole(READER, READER_SECRET, Duration.ofMinutes(15));

        assertThat(temporary.accessKeyId()).isNotEqualTo(READER);
        assertThat(temporary.sessionToken()).isNotBlank();
        assertThat(temporary.expirationTime())
                .hasValueSatisfying(expiry -> assertThat(expiry)
                        .isBetween(
                                Instant.now().plus(Duration.ofMinutes(14)),
                                Instant.now().plus(Duration.ofMinutes(16))));
        try (S3Client session = S3Clients.syncWithoutSdkRetries(minio, StaticCredentialsProvider.create(temporary))) {
            assertThat(session.getObjectAsBytes(get -> get.bucket(BUCKET_A).key("object"))
                            .asUtf8String())
                    .isEqualTo("in " + BUCKET_A);
            assertRefused(
                    () -> session.getObjectAsBytes(get -> get.bucket(BUCKET_B).key("object")), 403, "AccessDenied");
        }
        try (S3Client forged = S3Clients.syncWithoutSdkRetries(
                minio, credentials(temporary.accessKeyId(), temporary.secretAccessKey()))) { // the token left out
            assertRefused(
                    () -> forged.getObjectAsBytes(get -> get.bucket(BUCKET_A).key("object")), 403, "InvalidTokenId");
        }
    }

    @Test
    void aSessionPolicyNarrowsTheTemporaryCredentials() {
        String onlyAnotherKey = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
                + "\"Action\":[\"s3:GetObject\"],\"Resource\":[\"arn:aws:s3:::" + BUCKET_A + "/another\"]}]}";

        AwsSessionCredentials temporary =
                minio.assumeRole(READER, READER_SECRET, Duration.ofMinutes(15), onlyAnotherKey);

        try (S3Client session = S3Clients.syncWithoutSdkRetries(minio, StaticCredentialsProvider.create(temporary))) {
            assertRefused(
                    () -> session.getObjectAsBytes(get -> get.bucket(BUCKET_A).key("object")), 403, "AccessDenied");
        }
        assertThatThrownBy(() -> minio.assumeRole(READER, READER_SECRET, Duration.ofMinutes(14)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT15M");
    }

    /**
     * What Hadoop S3A and Iceberg's S3FileIO need: clients built without trust managers, after {@link
     * MinioServer#trustInJvmDefaults()}, trust the server; one built before keeps the trust it was built with.
     * A server of its own, so its close (which puts the JVM properties back) happens here.
     */
    @Test
    void trustInJvmDefaultsReachesClientsBuiltAfterwardsOnly() throws IOException {
        String trustStoreBefore = System.getProperty("javax.net.ssl.trustStore");
        try (MinioServer server = MinioServer.startTls();
                S3Client builtBefore = clientWithoutTrustManagers(server, Apache5HttpClient.builder())) {
            server.trustInJvmDefaults();

            assertThat(System.getProperty("javax.net.ssl.trustStore"))
                    .isEqualTo(server.trustStore().path().toString());
            assertThat(System.getProperty("javax.net.ssl.trustStoreType")).isEqualTo("PKCS12");
            try (S3Client apache5 = clientWithoutTrustManagers(server, Apache5HttpClient.builder());
                    S3Client apache4 = clientWithoutTrustManagers(server, ApacheHttpClient.builder())) {
                assertThat(apache5.listBuckets().buckets()).isEmpty();
                assertThat(apache4.listBuckets().buckets()).isEmpty();
            }
            assertThatThrownBy(builtBefore::listBuckets)
                    .isInstanceOf(SdkClientException.class)
                    .hasMessageContaining("PKIX path building failed");
            assertThat(Files.exists(server.trustStore().path())).isTrue();
        }

        assertThat(System.getProperty("javax.net.ssl.trustStore")).isEqualTo(trustStoreBefore);
    }

    private static S3Client clientWithoutTrustManagers(SdkHttpClient.Builder<?> http) {
        return clientWithoutTrustManagers(minio, http);
    }

    /** An SDK client as an engine builds its own: the HTTP client's defaults, so the JVM's default trust. */
    private static S3Client clientWithoutTrustManagers(MinioServer server, SdkHttpClient.Builder<?> http) {
        return S3Client.builder()
                .endpointOverride(server.endpoint())
                .region(Region.of(server.region()))
                .credentialsProvider(credentials(server.accessKey(), server.secretKey()))
                .forcePathStyle(true)
                .httpClientBuilder(http) // built, and closed, by the S3 client
                .build();
    }

    private static StaticCredentialsProvider credentials(String accessKey, String secretKey) {
        AwsCredentials credentials = AwsBasicCredentials.create(accessKey, secretKey);
        return StaticCredentialsProvider.create(credentials);
    }

    private static void assertRefused(Runnable request, int status, String errorCode) {
        assertThatThrownBy(request::run).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(status);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo(errorCode);
        });
    }

    /** An SSE-C key as its request headers carry it: base64, and the base64 of its MD5. */
    private record SseCKey(String base64, String md5) {

        static SseCKey random() throws NoSuchAlgorithmException {
            byte[] key = new byte[32]; // AES-256
            RANDOM.nextBytes(key);
            Base64.Encoder base64 = Base64.getEncoder();
            return new SseCKey(
                    base64.encodeToString(key),
                    base64.encodeToString(MessageDigest.getInstance("MD5").digest(key)));
        }
    }
}
