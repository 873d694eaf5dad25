package io.rangefetch.testing.server;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * A real MinIO over TLS with two principals, for the suites that check Rangefetch never serves one identity's bytes,
 * lengths, ETags or listings to another: an owner who may read both buckets, and a guest who may read
 * {@link #SHARED_BUCKET} only ({@link #OWNER_BUCKET} answers it 403). MinIO serves SSE-C only over TLS, so it runs
 * with a certificate made for it; this JVM's default trust is pointed at that certificate
 * ({@link MinioServer#trustInJvmDefaults()}) for clients a test cannot hand a trust manager (S3A, Iceberg's S3FileIO),
 * and put back by {@link #close()}. Users are made through MinIO's admin API ({@code rangefetch-minio-admin}); temporary
 * credentials with MinIO's STS.
 *
 * <p>Every secret here is made at random for the run, so a suite can search what it captured (logs, messages) for
 * each of them and find only real leaks: {@link #secrets()}.
 *
 * <p>Needs the {@code minio} and {@code rangefetch-minio-admin} binaries ({@link #available()}); {@code .ci/run} builds
 * both.
 */
public final class TwoPrincipalMinio implements AutoCloseable {
    /** Both principals may read it. */
    public static final String SHARED_BUCKET = "identity-shared";
    /** Only the owner may read it; the guest is answered 403. */
    public static final String OWNER_BUCKET = "identity-owner";

    private static final String OWNER = "rangefetch-owner";
    private static final String GUEST = "rangefetch-guest";

    private final MinioServer server;
    private final String ownerSecret;
    private final String guestSecret;
    private final String sseKey;
    private final String otherSseKey;

    private TwoPrincipalMinio(MinioServer server, SplittableRandom random) {
        this.server = server;
        this.ownerSecret = randomSecret(random);
        this.guestSecret = randomSecret(random);
        this.sseKey = randomSseKey(random);
        this.otherSseKey = randomSseKey(random);
    }

    /** Whether MinIO and {@code rangefetch-minio-admin} can be found; suites skip without them (CI has both). */
    public static boolean available() {
        return MinioServer.binaryAvailable() && MinioServer.adminAvailable();
    }

    /** Starts MinIO over TLS, trusts its certificate in this JVM, makes both buckets and both users. */
    public static TwoPrincipalMinio start() throws IOException {
        MinioServer server = MinioServer.startTls();
        try {
            TwoPrincipalMinio minio = new TwoPrincipalMinio(server, new SplittableRandom());
            server.trustInJvmDefaults();
            server.createBucket(SHARED_BUCKET);
            server.createBucket(OWNER_BUCKET);
            server.addUser(OWNER, minio.ownerSecret, List.of(SHARED_BUCKET, OWNER_BUCKET));
            server.addUser(GUEST, minio.guestSecret, List.of(SHARED_BUCKET));
            return minio;
        } catch (IOException | RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    /** The server, reached as its root user: for writing the objects a suite reads. */
    public MinioServer server() {
        return server;
    }

    public String ownerAccessKey() {
        return OWNER;
    }

    public String ownerSecretKey() {
        return ownerSecret;
    }

    public String guestAccessKey() {
        return GUEST;
    }

    public String guestSecretKey() {
        return guestSecret;
    }

    public AwsCredentialsProvider owner() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(OWNER, ownerSecret));
    }

    public AwsCredentialsProvider guest() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(GUEST, guestSecret));
    }

    /**
     * Temporary credentials of the guest (an access key id, a secret and a session token from MinIO's STS), valid for
     * {@code duration} (at least 15 minutes): what an assumed role or a vended credential looks like. Their secret and
     * token are added to {@link #secrets()} by the caller if it uses them ({@link #sessionSecrets}).
     */
    public AwsSessionCredentials guestSession(Duration duration) {
        return server.assumeRole(GUEST, guestSecret, duration);
    }

    /** The secrets of temporary credentials, to search captured text for. */
    public static List<String> sessionSecrets(AwsSessionCredentials session) {
        return List.of(session.secretAccessKey(), session.sessionToken());
    }

    /** The SSE-C key the suites encrypt with, as S3 takes it: base64 of 32 random bytes. */
    public String sseKey() {
        return sseKey;
    }

    /** Another SSE-C key: a reader holding it is answered 403. */
    public String otherSseKey() {
        return otherSseKey;
    }

    /** Writes {@code data} as the root user. */
    public void put(String bucket, String key, byte[] data) {
        put(bucket, key, data, null);
    }

    /** Writes {@code data} as the root user, encrypted with {@code base64SseKey} (SSE-C) unless it is null. */
    public void put(String bucket, String key, byte[] data, String base64SseKey) {
        requireNonNull(data, "data is null");
        PutObjectRequest.Builder request =
                PutObjectRequest.builder().bucket(bucket).key(key);
        if (base64SseKey != null) {
            request.sseCustomerAlgorithm("AES256").sseCustomerKey(base64SseKey).sseCustomerKeyMD5(md5Of(base64SseKey));
        }
        try (S3Client root = S3Clients.sync(server)) {
            root.putObject(request.build(), RequestBody.fromBytes(data));
        }
    }

    /** Base64 of the MD5 of the key's bytes, as S3 wants it beside an SSE-C key. */
    public static String md5Of(String base64SseKey) {
        try {
            return Base64.getEncoder()
                    .encodeToString(java.security.MessageDigest.getInstance("MD5")
                            .digest(Base64.getDecoder().decode(base64SseKey)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required by every Java platform", e);
        }
    }

    /**
     * Every secret of this fixture (the users' secret keys, the root's, both SSE-C keys), to search what a suite
     * captured for: raw, base64 and URL-encoded forms are the caller's to derive ({@link #formsOf}).
     */
    public List<String> secrets() {
        return List.of(ownerSecret, guestSecret, server.secretKey(), sseKey, otherSseKey);
    }

    /** The forms a secret may leak in: as it is, base64 of its text, and URL-encoded. */
    public static Set<String> formsOf(String secret) {
        // a set that takes duplicates: a secret with nothing to URL-encode is its own URL-encoded form
        Set<String> forms = new java.util.LinkedHashSet<>();
        forms.add(secret);
        forms.add(Base64.getEncoder().encodeToString(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        forms.add(java.net.URLEncoder.encode(secret, java.nio.charset.StandardCharsets.UTF_8));
        return forms;
    }

    /** Stops MinIO and puts this JVM's default trust back. */
    @Override
    public void close() {
        server.close();
    }

    private static String randomSecret(SplittableRandom random) {
        // 30 characters of base64 (with '+' and '/', which URL-encode differently): as long as an AWS secret's tail
        byte[] bytes = new byte[30];
        random.nextBytes(bytes);
        return "s" + Base64.getEncoder().encodeToString(bytes).substring(0, 39);
    }

    private static String randomSseKey(SplittableRandom random) {
        byte[] key = new byte[32];
        random.nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }
}
