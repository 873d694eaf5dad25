package io.rangefetch.hadoop;

import static io.rangefetch.testing.server.TwoPrincipalMinio.OWNER_BUCKET;
import static io.rangefetch.testing.server.TwoPrincipalMinio.SHARED_BUCKET;
import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.SharedFactories;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.testing.server.TwoPrincipalMinio;
import java.io.IOException;
import java.net.URI;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.AWSBadRequestException;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;
import org.apache.hadoop.security.ssl.DelegatingSSLSocketFactory;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * A shared cache that never crosses an identity, through one of S3A's entry points ({@link #throughEntryPoint}): S3A
 * file systems that read as another principal (other keys in {@code fs.s3a.*}, other keys held only by a Hadoop
 * credential provider, session credentials), or with another SSE-C key, never read through each other's Rangefetch
 * factory: not its cached bytes, not its GETs, not its cache while it lingers.
 *
 * <p><b>How each test can fail.</b> One file system reads an object whole, so its factory holds every byte of it; then
 * another file system opens the same object with the first one's file status ({@code openFile().withFileStatus}):
 * S3A sends no HEAD then, so nothing of S3A's own stands between the second file system and the first one's cache:
 * only the factory it leased does. MinIO must refuse that read (403; 400 for an SSE-C object read without a key) and
 * not one byte may reach the caller. A file system leasing the first one's factory would be served from its cache
 * instead, or send its GETs through the first one's S3A callbacks (the most recently opened stream's, see
 * {@link StreamCallbacksS3Client}): the refusal assertions fail then, as they do when {@code SharedS3AFactory.key}
 * leaves out what tells the identities apart. Each test also checks the factories apart directly: where the entry point
 * shows its factory ({@link #rangefetchOf}), that they are not the same; and how many the registry holds
 * ({@link SharedFactories#openCount()}), when a test starts with the registry empty: file systems other test classes of
 * the same JVM dropped unclosed give their leases back whenever the collector finds them, so a count is only this
 * test's when there are none.
 *
 * <p><b>Fixture.</b> One {@link TwoPrincipalMinio} per class (TLS: MinIO serves SSE-C over TLS only); its start points
 * the JVM's default trust at its certificate, which S3A's clients made afterwards use. Hadoop's TLS socket factory
 * ({@link DelegatingSSLSocketFactory}: S3A's TLS clients use it on 3.3.x, and on later lines with the SDK bundle) is
 * a JVM-wide singleton that keeps the trust of the moment the first TLS client of the JVM made it, maybe in an earlier
 * test class of the same failsafe JVM against another server: it is reset after the start (and after the close), so
 * the next client makes it anew with the trust of now. S3A's settings are {@link ProxiedS3A}'s, with TLS and without
 * its root keys.
 *
 * <p><b>Lines.</b> Compiled and run on Hadoop 3.5.0 and 3.4.2 (both entry points) and 3.4.1, 3.3.6, 3.3.4 (the file
 * system): it names nothing those lines lack. Vectored reads (3.3.5 and later) are {@link S3AIdentityVectoredReads}'s,
 * loaded by name where Hadoop has them; that file is not compiled on 3.3.4.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class S3AIdentitySuite {
    /** About 2 MB, read whole: all of it in the reader's factory's cache. */
    private static final int OBJECT_SIZE = 2 * 1024 * 1024 + 4321;
    /** An SSE-C object of an odd length: its last block is a short one. */
    private static final int SSE_C_OBJECT_SIZE = 2_109_497;

    private static final String GETS = "rangefetch_get_requests";
    private static final String CACHE_HITS = "rangefetch_cache_hits";
    private static final String LINGER = "fs.s3a.rangefetch.factory.linger";
    private static final String SESSION_PROVIDER = "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider";
    private static final long OPEN_TIMEOUT_SECONDS = 120;

    private TwoPrincipalMinio minio;
    private Optional<VectoredReads> vectoredReads;
    // whether the registry held nothing when the test began, so its counts are the test's alone
    private boolean countsAreOurs;

    /** {@code conf} (S3A on the fixture) made to read through the entry point under test. */
    abstract Configuration throughEntryPoint(Configuration conf);

    /** The Rangefetch factory serving {@code fs}'s streams, where the entry point shows it. */
    abstract Optional<StreamFactory> rangefetchOf(FileSystem fs);

    /** Hadoop's vectored read of {@code ranges}: each range's bytes. */
    interface VectoredReads {
        List<byte[]> read(FSDataInputStream in, List<Range> ranges) throws Exception;
    }

    record Range(long offset, int length) {}

    @BeforeAll
    void startMinio() throws IOException {
        assumeTrue(
                TwoPrincipalMinio.available(),
                "no minio or rangefetch-minio-admin binary ($MINIO_BINARY/$MINIO_ADMIN_BINARY, PATH or $(go env"
                        + " GOPATH)/bin): build them with .ci/run");
        minio = TwoPrincipalMinio.start();
        // made again, from the trust MinIO's start set, by the next S3A client
        DelegatingSSLSocketFactory.resetDefaultFactory();
        vectoredReads = vectoredReads();
    }

    @AfterAll
    void stopMinio() {
        SharedFactories.closeIdle();
        if (minio != null) {
            minio.close();
            // later S3A clients of this JVM trust what the JVM trusts again
            DelegatingSSLSocketFactory.resetDefaultFactory();
        }
    }

    /**
     * Factories an earlier test (or class) left lingering close, and leases of file systems an earlier class of this
     * JVM dropped unclosed end now (they end when the collector finds them), not between two counts of a test. Bounded:
     * a file system still in use keeps its lease, which changes no count.
     */
    @BeforeEach
    void settleTheRegistry() throws InterruptedException {
        SharedFactories.closeIdle();
        for (int i = 0; i < 3 && SharedFactories.openCount() > 0; i++) {
            System.gc();
            SharedFactories.awaitOpenCount(0, Duration.ofMillis(100));
        }
        countsAreOurs = SharedFactories.openCount() == 0;
        if (!countsAreOurs) {
            System.out.printf(
                    "S3AIdentitySuite: %d factories of other classes are open: this test counts none%n",
                    SharedFactories.openCount());
        }
    }

    @AfterEach
    void closeLingeringFactories() {
        SharedFactories.closeIdle();
    }

    @Test
    void aGuestWithOtherKeysInFsS3aSettingsIsRefusedWhatTheOwnersFactoryCached() throws Exception {
        byte[] data = put(OWNER_BUCKET, "keys/object.bin", OBJECT_SIZE, 1, null);
        Path path = path(OWNER_BUCKET, "keys/object.bin");
        try (FileSystem owner = fileSystem(OWNER_BUCKET, withOwnerKeys(s3a()))) {
            FileStatus status = owner.getFileStatus(path);
            assertThat(readWhole(owner, status)).isEqualTo(data);

            try (FileSystem guest = fileSystem(OWNER_BUCKET, withGuestKeys(s3a()))) {
                assertOpenFactories(2, "the owner's and the guest's");
                assertFactoriesDiffer(guest, owner);
                assertReadRefused(403, status.getLen(), () -> openWith(guest, status));
                assertReadRefused(403, status.getLen(), () -> guest.open(path));
                assertRefused(403, catchThrowable(() -> guest.getFileStatus(path)));
            }
            // the owner's own reads are untouched by the guest's refusals
            assertThat(readWhole(owner, status)).isEqualTo(data);
        }
    }

    /**
     * Keys held by a JCEKS file named by Hadoop's provider path, or by S3A's own (which S3A folds into Hadoop's).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hadoop.security.credential.provider.path", "fs.s3a.security.credential.provider.path"})
    void keysHeldOnlyByACredentialProviderLeaseAFactoryOfTheirOwnAndNeverSendThroughAnothersStreams(
            String providerPath, @TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path ownerStore = dir.resolve("owner.jceks");
        java.nio.file.Path guestStore = dir.resolve("guest.jceks");
        writeCredentials(ownerStore, minio.ownerAccessKey(), minio.ownerSecretKey());
        writeCredentials(guestStore, minio.guestAccessKey(), minio.guestSecretKey());
        // Both file systems name the same provider path, every fs.s3a.* setting the same and no keys among them: only
        // what the file holds when each starts differs (a rewritten file, a path each task resolves to its own)
        java.nio.file.Path store = dir.resolve("s3a.jceks");
        Configuration conf = s3a();
        conf.set(providerPath, jceks(store));
        assertThat(conf.getPropsWithPrefix("fs.s3a.")).doesNotContainKeys("access.key", "secret.key");

        byte[] read = put(OWNER_BUCKET, "jceks/read.bin", OBJECT_SIZE, 2, null);
        byte[] unread = put(OWNER_BUCKET, "jceks/unread.bin", OBJECT_SIZE, 3, null);
        Path readPath = path(OWNER_BUCKET, "jceks/read.bin");
        Path unreadPath = path(OWNER_BUCKET, "jceks/unread.bin");

        Files.copy(ownerStore, store, REPLACE_EXISTING);
        try (FileSystem owner = fileSystem(OWNER_BUCKET, new Configuration(conf))) {
            FileStatus readStatus = owner.getFileStatus(readPath);
            FileStatus unreadStatus = owner.getFileStatus(unreadPath);
            assertThat(readWhole(owner, readStatus)).isEqualTo(read);

            Files.copy(guestStore, store, REPLACE_EXISTING);
            try (FileSystem guest = fileSystem(OWNER_BUCKET, new Configuration(conf))) {
                assertOpenFactories(2, "the owner's and the guest's");
                assertFactoriesDiffer(guest, owner);
                // what the owner's factory cached
                assertReadRefused(403, readStatus.getLen(), () -> openWith(guest, readStatus));
                assertRefused(403, catchThrowable(() -> guest.getFileStatus(readPath)));

                // what nobody read yet, while streams of the owner's are open on it: one opened before the guest's,
                // one after (the stream a shared factory's GETs of that object would be sent through)
                try (FSDataInputStream ownerBefore = openWith(owner, unreadStatus);
                        FSDataInputStream guestStream = openWith(guest, unreadStatus);
                        FSDataInputStream ownerAfter = openWith(owner, unreadStatus)) {
                    byte[] guestRead = new byte[unread.length];
                    assertRefused(403, catchThrowable(() -> guestStream.readFully(0, guestRead)));
                    assertNoByteRead(guestRead);

                    byte[] ownerRead = new byte[unread.length];
                    ownerAfter.readFully(0, ownerRead);
                    assertThat(ownerRead).isEqualTo(unread);
                    ownerBefore.readFully(0, ownerRead);
                    assertThat(ownerRead).isEqualTo(unread);

                    // the guest's stream, still open, is refused what the owner's streams have fetched since
                    assertRefused(403, catchThrowable(() -> guestStream.readFully(0, guestRead)));
                    assertNoByteRead(guestRead);
                }
            }
        }
    }

    @Test
    void anSseCObjectReadsWholeWithItsKeyAndFromTheCacheTheSecondTimeButNeverWithoutOrWithAnotherKey()
            throws Exception {
        byte[] data = put(OWNER_BUCKET, "sse-c/object.bin", SSE_C_OBJECT_SIZE, 4, minio.sseKey());
        Path path = path(OWNER_BUCKET, "sse-c/object.bin");
        try (FileSystem right = fileSystem(OWNER_BUCKET, withSseC(withOwnerKeys(s3a()), minio.sseKey()));
                FileSystem none = fileSystem(OWNER_BUCKET, withOwnerKeys(s3a()));
                FileSystem other = fileSystem(OWNER_BUCKET, withSseC(withOwnerKeys(s3a()), minio.otherSseKey()))) {
            assertOpenFactories(3, "one per SSE-C key, and one without");
            assertFactoriesDiffer(right, none);
            assertFactoriesDiffer(right, other);
            FileStatus status = right.getFileStatus(path);
            assertThat(status.getLen()).isEqualTo(SSE_C_OBJECT_SIZE);
            assertSseCRefused(none, other, status);

            try (FSDataInputStream in = openWith(right, status)) {
                byte[] middle = new byte[100_000];
                in.readFully(1_000_000, middle);
                assertThat(middle).isEqualTo(Arrays.copyOfRange(data, 1_000_000, 1_100_000));
                byte[] tail = new byte[5000];
                int got = in.read(data.length - 777, tail, 0, tail.length);
                assertThat(got).isBetween(1, 777);
                assertThat(Arrays.copyOf(tail, got))
                        .isEqualTo(Arrays.copyOfRange(data, data.length - 777, data.length - 777 + got));
                assertThat(in.read(data.length, tail, 0, 1))
                        .as("a positioned read at the end")
                        .isEqualTo(-1);
                byte[] whole = new byte[data.length];
                in.readFully(0, whole);
                assertThat(whole).isEqualTo(data);
                if (vectoredReads.isPresent()) {
                    List<Range> ranges =
                            List.of(new Range(10, 1000), new Range(1_048_576, 65_536), new Range(data.length - 3, 3));
                    List<byte[]> vectored = vectoredReads.get().read(in, ranges);
                    for (int i = 0; i < ranges.size(); i++) {
                        Range range = ranges.get(i);
                        assertThat(vectored.get(i))
                                .as("vectored range %s", range)
                                .isEqualTo(Arrays.copyOfRange(
                                        data, (int) range.offset(), (int) range.offset() + range.length()));
                    }
                }
                assertThat(counter(in, GETS)).isPositive();
            }
            Optional<StreamFactory> factory = rangefetchOf(right);
            long factoryGets = factory.map(f -> f.statistics().getRequests()).orElse(0L);
            try (FSDataInputStream again = openWith(right, status)) {
                byte[] whole = new byte[data.length];
                again.readFully(0, whole);
                assertThat(whole).isEqualTo(data);
                assertThat(counter(again, GETS))
                        .as("GETs of the second read: the cache serves it")
                        .isZero();
                assertThat(counter(again, CACHE_HITS)).isPositive();
            }
            if (factory.isPresent()) {
                assertThat(factory.get().statistics().getRequests())
                        .as("GETs of the factory over the second read")
                        .isEqualTo(factoryGets);
            }
            assertSseCRefused(none, other, status);
        }
    }

    @Test
    void sessionCredentialsReadWhatTheirPrincipalMayAndAreRefusedWhatTheOwnersFactoryCached() throws Exception {
        AwsSessionCredentials session = minio.guestSession(Duration.ofMinutes(30));
        Configuration sessionConf = s3a();
        sessionConf.set("fs.s3a.aws.credentials.provider", SESSION_PROVIDER);
        sessionConf.set("fs.s3a.access.key", session.accessKeyId());
        sessionConf.set("fs.s3a.secret.key", session.secretAccessKey());
        sessionConf.set("fs.s3a.session.token", session.sessionToken());

        byte[] shared = put(SHARED_BUCKET, "session/shared.bin", OBJECT_SIZE, 5, null);
        try (FileSystem guest = fileSystem(SHARED_BUCKET, new Configuration(sessionConf))) {
            Path sharedPath = path(SHARED_BUCKET, "session/shared.bin");
            assertThat(readWhole(guest, guest.getFileStatus(sharedPath))).isEqualTo(shared);
        }

        byte[] owned = put(OWNER_BUCKET, "session/owned.bin", OBJECT_SIZE, 6, null);
        Path ownedPath = path(OWNER_BUCKET, "session/owned.bin");
        try (FileSystem owner = fileSystem(OWNER_BUCKET, withOwnerKeys(s3a()))) {
            FileStatus status = owner.getFileStatus(ownedPath);
            assertThat(readWhole(owner, status)).isEqualTo(owned);
            try (FileSystem guest = fileSystem(OWNER_BUCKET, new Configuration(sessionConf))) {
                assertOpenFactories(2, "the owner's and the guest's");
                assertFactoriesDiffer(guest, owner);
                assertReadRefused(403, status.getLen(), () -> openWith(guest, status));
                assertReadRefused(403, status.getLen(), () -> guest.open(ownedPath));
                assertRefused(403, catchThrowable(() -> guest.getFileStatus(ownedPath)));
            }
        }
    }

    @Test
    void aLingeringFactoryServesTheNextFileSystemOfTheSameIdentityFromItsCacheAndNoOtherIdentity() throws Exception {
        byte[] data = put(OWNER_BUCKET, "linger/object.bin", OBJECT_SIZE, 7, null);
        Path path = path(OWNER_BUCKET, "linger/object.bin");
        Configuration lingering = s3a();
        lingering.set(LINGER, "10m");

        FileStatus status;
        Optional<StreamFactory> first;
        try (FileSystem owner = fileSystem(OWNER_BUCKET, withOwnerKeys(new Configuration(lingering)))) {
            status = owner.getFileStatus(path);
            first = rangefetchOf(owner);
            try (FSDataInputStream in = openWith(owner, status)) {
                byte[] whole = new byte[data.length];
                in.readFully(0, whole);
                assertThat(whole).isEqualTo(data);
                assertThat(counter(in, GETS)).isPositive();
            }
        }
        assertOpenFactories(1, "the owner's, lingering");

        try (FileSystem owner = fileSystem(OWNER_BUCKET, withOwnerKeys(new Configuration(lingering)))) {
            assertOpenFactories(1, "the owner's, leased again by the next owner's file system");
            if (first.isPresent()) {
                assertThat(rangefetchOf(owner).orElseThrow()).isSameAs(first.get());
            }
            try (FSDataInputStream in = owner.open(path)) {
                byte[] whole = new byte[data.length];
                in.readFully(0, whole);
                assertThat(whole).isEqualTo(data);
                assertThat(counter(in, GETS))
                        .as("GETs: the lingering cache serves the read")
                        .isZero();
                assertThat(counter(in, CACHE_HITS)).isPositive();
            }
        }

        try (FileSystem guest = fileSystem(OWNER_BUCKET, withGuestKeys(new Configuration(lingering)))) {
            assertOpenFactories(2, "the owner's, lingering, and the guest's");
            if (first.isPresent()) {
                assertThat(rangefetchOf(guest).orElseThrow()).isNotSameAs(first.get());
            }
            assertReadRefused(403, status.getLen(), () -> openWith(guest, status));
            assertReadRefused(403, status.getLen(), () -> guest.open(path));
        }
        SharedFactories.closeIdle();
        assertOpenFactories(0, "none once the lingering one is closed");
    }

    // --- the fixture as S3A sees it ------------------------------------------------------------------------------

    /**
     * S3A on the fixture's MinIO through the entry point under test: TLS, the owner's and the guest's settings alike
     * but for what a test adds (keys, SSE-C, a linger), a file system per {@code newInstance}, no linger.
     */
    private Configuration s3a() {
        // endpoint, region, path-style addressing, no bucket probe, S3A's simple key provider, a file system per
        // newInstance: as for the tests' plain-HTTP servers
        Configuration conf = ProxiedS3A.s3aConfiguration(minio.server());
        conf.setBoolean("fs.s3a.connection.ssl.enabled", true);
        // the server's root keys: each test sets the keys (or the provider) of the principal it reads as
        conf.unset("fs.s3a.access.key");
        conf.unset("fs.s3a.secret.key");
        conf.set(LINGER, "0s");
        return throughEntryPoint(conf);
    }

    private Configuration withOwnerKeys(Configuration conf) {
        conf.set("fs.s3a.access.key", minio.ownerAccessKey());
        conf.set("fs.s3a.secret.key", minio.ownerSecretKey());
        return conf;
    }

    private Configuration withGuestKeys(Configuration conf) {
        conf.set("fs.s3a.access.key", minio.guestAccessKey());
        conf.set("fs.s3a.secret.key", minio.guestSecretKey());
        return conf;
    }

    /** SSE-C with {@code base64Key}, under the names every line from 3.3.4 reads. */
    private static Configuration withSseC(Configuration conf, String base64Key) {
        conf.set("fs.s3a.encryption.algorithm", "SSE-C");
        conf.set("fs.s3a.encryption.key", base64Key);
        return conf;
    }

    private static FileSystem fileSystem(String bucket, Configuration conf) throws IOException {
        return FileSystem.newInstance(URI.create("s3a://" + bucket + "/"), conf);
    }

    private static Path path(String bucket, String key) {
        return new Path("s3a://" + bucket + "/" + key);
    }

    /** Writes {@code size} bytes of the seed's as root (SSE-C with {@code sseKey} unless it is null); answers them. */
    private byte[] put(String bucket, String key, int size, long seed, String sseKey) {
        byte[] data = new byte[size];
        new SplittableRandom(seed).nextBytes(data);
        minio.put(bucket, key, data, sseKey);
        return data;
    }

    /** A JCEKS file holding S3A's two keys, written through Hadoop's credential provider API. */
    private static void writeCredentials(java.nio.file.Path file, String accessKey, String secretKey)
            throws IOException {
        Configuration conf = new Configuration(false);
        conf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, jceks(file));
        CredentialProvider provider =
                CredentialProviderFactory.getProviders(conf).get(0);
        provider.createCredentialEntry("fs.s3a.access.key", accessKey.toCharArray());
        provider.createCredentialEntry("fs.s3a.secret.key", secretKey.toCharArray());
        provider.flush();
    }

    private static String jceks(java.nio.file.Path file) {
        return "jceks://file" + file.toAbsolutePath().toUri().getPath();
    }

    // --- reading ---------------------------------------------------------------------------------------------------

    /** Opens {@code status}'s object with the status given: S3A sends no HEAD, and the stream knows length and ETag. */
    private static FSDataInputStream openWith(FileSystem fs, FileStatus status) throws IOException {
        CompletableFuture<FSDataInputStream> opening =
                fs.openFile(status.getPath()).withFileStatus(status).build();
        try {
            return FutureIO.awaitFuture(opening, OPEN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("opening " + status.getPath() + " took over " + OPEN_TIMEOUT_SECONDS + "s", e);
        }
    }

    private static byte[] readWhole(FileSystem fs, FileStatus status) throws IOException {
        try (FSDataInputStream in = openWith(fs, status)) {
            byte[] whole = new byte[Math.toIntExact(status.getLen())];
            in.readFully(0, whole);
            return whole;
        }
    }

    /** A Rangefetch counter of {@code in}'s statistics; fails if {@code in} is not a Rangefetch stream. */
    private static long counter(FSDataInputStream in, String name) {
        Long value = in.getIOStatistics().counters().get(name);
        assertThat(value)
                .as("%s of %s: not a Rangefetch stream?", name, in.getWrappedStream())
                .isNotNull();
        return value;
    }

    private static Optional<VectoredReads> vectoredReads() {
        try {
            Class.forName("org.apache.hadoop.fs.FileRange", false, FileSystem.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return Optional.empty(); // Hadoop 3.3.4: no vectored reads
        }
        try {
            return Optional.of(Class.forName(S3AIdentitySuite.class.getPackageName() + ".S3AIdentityVectoredReads")
                    .asSubclass(VectoredReads.class)
                    .getDeclaredConstructor()
                    .newInstance());
        } catch (ClassNotFoundException e) {
            // a build whose test includes leave the file out (rangefetch-hadoop's hadoop-3.4.1 profile)
            System.out.println("S3AIdentitySuite: S3AIdentityVectoredReads was not compiled: no vectored read checked");
            return Optional.empty();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("S3AIdentityVectoredReads cannot be made", e);
        }
    }

    // --- refusals --------------------------------------------------------------------------------------------------

    /** Something that opens a stream: the refusal may come when it opens or when it reads. */
    @FunctionalInterface
    private interface Opener {
        FSDataInputStream open() throws Exception;
    }

    /** Opening and reading {@code length} bytes fails with {@code status}, and not one byte reaches the buffer. */
    private static void assertReadRefused(int status, long length, Opener opener) {
        byte[] into = new byte[Math.toIntExact(length)];
        Throwable thrown = catchThrowable(() -> {
            try (FSDataInputStream in = opener.open()) {
                in.readFully(0, into);
            }
        });
        assertRefused(status, thrown);
        assertNoByteRead(into);
    }

    private void assertSseCRefused(FileSystem none, FileSystem other, FileStatus status) {
        // MinIO answers a read of an SSE-C object without its key 400, and one with another key 403
        assertReadRefused(400, status.getLen(), () -> openWith(none, status));
        assertReadRefused(400, status.getLen(), () -> none.open(status.getPath()));
        assertReadRefused(403, status.getLen(), () -> openWith(other, status));
        assertReadRefused(403, status.getLen(), () -> other.open(status.getPath()));
    }

    /**
     * {@code thrown} is an IOException whose cause chain carries the HTTP status: Rangefetch's or the AWS SDK's
     * exception with it, or S3A's translation of it (403: {@link AccessDeniedException}, 400:
     * {@link AWSBadRequestException}).
     */
    private static void assertRefused(int status, Throwable thrown) {
        assertThat(thrown).as("refused with %d", status).isInstanceOf(IOException.class);
        assertThat(statusesIn(thrown)).as("the statuses in %s", chain(thrown)).contains(status);
    }

    private static Set<Integer> statusesIn(Throwable thrown) {
        Set<Integer> statuses = new LinkedHashSet<>();
        for (Throwable cause : causes(thrown)) {
            if (cause instanceof HttpStatusException http) {
                statuses.add(http.statusCode());
            } else if (cause instanceof AwsServiceException aws) {
                statuses.add(aws.statusCode());
            } else if (cause instanceof AccessDeniedException) {
                statuses.add(403);
            } else if (cause instanceof AWSBadRequestException) {
                statuses.add(400);
            }
        }
        return statuses;
    }

    private static List<Throwable> causes(Throwable thrown) {
        List<Throwable> causes = new ArrayList<>();
        for (Throwable cause = thrown; cause != null && !causes.contains(cause); cause = cause.getCause()) {
            causes.add(cause);
        }
        return causes;
    }

    private static String chain(Throwable thrown) {
        StringBuilder text = new StringBuilder();
        for (Throwable cause : causes(thrown)) {
            text.append("\n  ").append(cause);
        }
        return text.toString();
    }

    private static void assertNoByteRead(byte[] buffer) {
        int firstRead = -1;
        for (int i = 0; i < buffer.length && firstRead < 0; i++) {
            if (buffer[i] != 0) {
                firstRead = i;
            }
        }
        assertThat(firstRead).as("the first byte handed out (-1: none)").isEqualTo(-1);
    }

    // --- factories -------------------------------------------------------------------------------------------------

    /** The registry holds {@code expected} factories, where this test's counts are its own (see the class note). */
    private void assertOpenFactories(int expected, String which) {
        if (countsAreOurs) {
            assertThat(SharedFactories.openCount())
                    .as("open factories: %s", which)
                    .isEqualTo(expected);
        }
    }

    private void assertFactoriesDiffer(FileSystem fs, FileSystem other) {
        Optional<StreamFactory> mine = rangefetchOf(fs);
        Optional<StreamFactory> theirs = rangefetchOf(other);
        if (mine.isPresent() && theirs.isPresent()) {
            assertThat(mine.get()).isNotSameAs(theirs.get());
        }
    }
}
