package io.rangefetch.it;

import static io.rangefetch.testing.server.TwoPrincipalMinio.OWNER_BUCKET;
import static io.rangefetch.testing.server.TwoPrincipalMinio.SHARED_BUCKET;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.ObjectListing;
import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ListedObject;
import io.rangefetch.client.S3Location;
import io.rangefetch.it.SignedRequests.Sent;
import io.rangefetch.testing.TestData;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.ThreadLeakChecker;
import io.rangefetch.testing.server.TwoPrincipalMinio;
import java.io.IOException;
import java.net.URLEncoder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;

/**
 * One stream factory, several identities, on a real MinIO over TLS ({@link TwoPrincipalMinio}): an owner who may read
 * both buckets and a guest who may read {@value TwoPrincipalMinio#SHARED_BUCKET} only. The factory's client signs as
 * the owner; a stream signs as someone else through {@link OpenOptions.Builder#credentials}, and carries an SSE-C key
 * through {@link OpenOptions.Builder#sseCustomerKey}. Whatever the owner (or the right key) cached, learned, listed or
 * has in flight, another identity is served none of it: it asks S3 itself, under its own credentials, and S3 answers
 * it as S3 would (403 for a bucket it may not read, 400 without an SSE-C key, 403 with a wrong one). Who signed each
 * request is read off the wire ({@link SignedRequests}).
 *
 * <p>The last test checks that no secret (the users' secret keys, the root's, both SSE-C keys, a session's secret and
 * token) shows in anything Rangefetch says while those scenarios run: its log at {@code TRACE}, its exceptions, the
 * {@code toString} of its objects. The AWS SDK's and Apache HttpClient's own wire logging
 * ({@code software.amazon.awssdk.request}, {@code org.apache.http.wire} at {@code DEBUG}) prints headers by design and
 * is not Rangefetch's: only the {@code io.rangefetch} loggers are captured.
 *
 * <p>Skipped where there is no {@code minio} or {@code rangefetch-minio-admin} binary; one MinIO for the whole class.
 */
class IdentityMinioIT {
    /** The size the issue measured its leak with. */
    private static final int OBJECT_SIZE = 2_109_497;

    private static final int PARQUET_SIZE = 1_048_583;
    private static final int SHARED_SIZE = 700_001;
    private static final S3Location PRIVATE = new S3Location(OWNER_BUCKET, "private/object.bin");
    private static final S3Location PRIVATE_PARQUET = new S3Location(OWNER_BUCKET, "private/table.parquet");
    private static final S3Location SHARED = new S3Location(SHARED_BUCKET, "open/object.bin");
    private static final S3Location ENCRYPTED = new S3Location(SHARED_BUCKET, "sse/object.bin");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration THREAD_GRACE = Duration.ofSeconds(10);
    /**
     * The DEBUG lines the scenarios are known to log: one per guest stream of the Parquet object that knew nothing of
     * it (five), whose footer fetch at open is refused. Fewer means the capture was not on.
     */
    private static final int MIN_DEBUG_LINES = 5;
    /**
     * Threads of the JVM that outlive whatever used them and are nobody's here to stop: the AWS SDK's one scheduler
     * for the timeouts of response streams, and the common pool (Caffeine runs a bounded cache's maintenance there
     * when the cache is given no executor).
     */
    private static final List<String> JVM_WIDE_THREADS =
            List.of("response-input-stream-timeout-scheduler", "ForkJoinPool.commonPool-worker-");

    private static final Map<S3Location, byte[]> DATA = new LinkedHashMap<>();
    private static final Map<S3Location, String> ETAGS = new LinkedHashMap<>();

    private static ThreadLeakChecker threads;
    private static TwoPrincipalMinio minio;
    private static AwsSessionCredentials session;

    @BeforeAll
    static void startMinioAndWriteTheObjects() throws IOException {
        assumeTrue(TwoPrincipalMinio.available(), "needs the minio and rangefetch-minio-admin binaries");
        threads = ThreadLeakChecker.snapshot();
        minio = TwoPrincipalMinio.start();
        write(PRIVATE, TestData.bytes(OBJECT_SIZE, 1), null);
        write(PRIVATE_PARQUET, TestData.bytes(PARQUET_SIZE, 2), null);
        write(SHARED, TestData.bytes(SHARED_SIZE, 3), null);
        write(ENCRYPTED, TestData.bytes(OBJECT_SIZE, 4), minio.sseKey());
        session = minio.guestSession(Duration.ofMinutes(15));
    }

    private static void write(S3Location location, byte[] data, String sseKey) {
        minio.put(location.bucket(), location.key(), data, sseKey);
        DATA.put(location, data);
        HeadObjectRequest.Builder head =
                HeadObjectRequest.builder().bucket(location.bucket()).key(location.key());
        if (sseKey != null) {
            head.sseCustomerAlgorithm("AES256")
                    .sseCustomerKey(sseKey)
                    .sseCustomerKeyMD5(TwoPrincipalMinio.md5Of(sseKey));
        }
        try (S3Client root = S3Clients.sync(minio.server())) {
            ETAGS.put(location, root.headObject(head.build()).eTag());
        }
    }

    @AfterAll
    static void stopMinio() {
        if (minio != null) {
            minio.close();
        }
        if (threads != null) {
            assertNoThreadLeft();
        }
    }

    /**
     * Every thread started since the class began has ended (within a grace), but for {@link #JVM_WIDE_THREADS}:
     * Rangefetch's pools, the readers of the tests, the SDK's HTTP clients and the JDK's TLS all count.
     */
    private static void assertNoThreadLeft() {
        long deadline = System.nanoTime() + THREAD_GRACE.toNanos();
        while (true) {
            List<Thread> left = threads.newThreads("").stream()
                    .filter(thread -> JVM_WIDE_THREADS.stream()
                            .noneMatch(name -> thread.getName().startsWith(name)))
                    .toList();
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                fail("threads still alive %s after the tests: %s", THREAD_GRACE, left);
            }
            try {
                left.get(0).join(50); // short joins, then look again: a pool may start a replacement on its way out
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for threads to end", e);
            }
        }
    }

    // ---- A1 --------------------------------------------------------------------------------------------------------

    @Test
    void aGuestStreamOfTheOwnersFactoryIsServedNoByteOfWhatTheOwnerReadAndSignsEveryRequestItself() throws Exception {
        guestStreamsOfTheOwnersFactory(new Transcript());
    }

    /**
     * The owner reads each private object whole; then streams of the same factory signing as the guest, knowing the
     * length and ETag or not, try every kind of read: each fails with S3's 403, the buffers stay empty, and every
     * request they caused (the Parquet policy's footer fetch at open included) was signed by the guest.
     */
    private static void guestStreamsOfTheOwnersFactory(Transcript transcript) throws Exception {
        try (Reading owner = new Reading(minio.owner(), StreamConfig.defaults())) {
            for (S3Location location : List.of(PRIVATE, PRIVATE_PARQUET)) {
                byte[] expected = DATA.get(location);
                try (SeekableS3InputStream own = owner.factory.open(location)) {
                    assertThat(readAll(own)).as("the owner reads %s", location).isEqualTo(expected);
                    assertThat(own.etag()).contains(ETAGS.get(location));
                    transcript.value(own);
                    transcript.value(own.statistics());
                }
                owner.quiet();

                OpenOptions unknowing =
                        OpenOptions.builder().credentials(minio.guest()).build();
                OpenOptions knowing = unknowing.toBuilder()
                        .length(expected.length)
                        .etag(ETAGS.get(location))
                        .build();
                for (OpenOptions options : List.of(unknowing, knowing)) {
                    transcript.value(options);
                    for (Refusals.ReadKind kind : Refusals.ReadKind.values()) {
                        try (SeekableS3InputStream stream = owner.factory.open(location, options)) {
                            Refusals.assertRefused(stream, kind, expected.length, 403, transcript);
                            transcript.value(stream);
                            transcript.value(stream.statistics());
                        }
                    }
                    try (SeekableS3InputStream stream = owner.factory.open(location, options)) {
                        if (options.length().isPresent()) {
                            assertThat(stream.length())
                                    .as("the length the caller gave")
                                    .isEqualTo(expected.length);
                        } else {
                            Refusals.assertStatus(
                                    catchThrowable(stream::length), 403, "length() of " + options, transcript);
                        }
                    }
                }
                assertThat(owner.requests.awaitQuiet(WAIT)).isTrue();
                assertThat(owner.requests.all())
                        .as("every request the guest's streams of %s caused, signed by the guest", location)
                        .isNotEmpty()
                        .extracting(Sent::signedBy)
                        .containsOnly(minio.guestAccessKey());
                owner.requests.clear();
            }
            transcript.value(owner.factory.statistics());
            transcript.value(owner.factory);
        }
    }

    // ---- A2 --------------------------------------------------------------------------------------------------------

    /**
     * The owner's GET is held in flight (its answer came back and waits in the SDK), its blocks claimed: a guest stream
     * that knows the length and the ETag reads the same bytes and is answered 403 by S3 while the owner's answer is
     * still held (had it joined the owner's GET, it would be waiting for that answer), while a second stream of the owner, through
     * another provider instance of the same keys, joins the GET and sends none of its own.
     */
    @Test
    void aGetInFlightForTheOwnerIsJoinedByTheOwnersOtherStreamsOnly() throws Exception {
        byte[] expected = DATA.get(PRIVATE);
        OpenOptions known = OpenOptions.builder()
                .length(expected.length)
                .etag(ETAGS.get(PRIVATE))
                .build();
        HeldAnswers hold = new HeldAnswers(request ->
                request.method() == SdkHttpMethod.GET && minio.ownerAccessKey().equals(SignedRequests.signer(request)));
        // no hedge and no first-byte timeout: a held GET is neither sent again nor given up while the test holds it
        StreamConfig config = StreamConfig.builder()
                .set(StreamConfig.HEDGE_ENABLED, false)
                .set(StreamConfig.RETRY_FIRST_BYTE_TIMEOUT, Duration.ZERO)
                .build();
        Transcript transcript = new Transcript();
        try (Reading owner = new Reading(minio.owner(), config, hold)) {
            hold.arm();
            long ownGets;
            try (SeekableS3InputStream own = owner.factory.open(PRIVATE, known)) {
                BackgroundRead ownRead = BackgroundRead.start("owner", () -> readAll(own));
                try {
                    assertThat(hold.awaitHeld(1, WAIT.toSeconds()))
                            .as("the owner's GET is held")
                            .isTrue();

                    try (SeekableS3InputStream guest = owner.factory.open(
                            PRIVATE,
                            known.toBuilder().credentials(minio.guest()).build())) {
                        BackgroundRead guestRead = BackgroundRead.start("guest", () -> readAll(guest));
                        Throwable refusal = guestRead.failureWhileHeld(hold, WAIT);
                        Refusals.assertStatus(
                                refusal, 403, "the guest's read while the owner's GET is in flight", transcript);
                    }

                    AwsCredentialsProvider sameKeys = StaticCredentialsProvider.create(
                            AwsBasicCredentials.create(minio.ownerAccessKey(), minio.ownerSecretKey()));
                    try (SeekableS3InputStream same = owner.factory.open(
                            PRIVATE, known.toBuilder().credentials(sameKeys).build())) {
                        BackgroundRead sameRead = BackgroundRead.start("owner-again", () -> readAll(same));
                        sameRead.awaitWaiting(WAIT);
                        hold.release();
                        assertThat(ownRead.result(WAIT)).as("the owner's bytes").isEqualTo(expected);
                        assertThat(sameRead.result(WAIT))
                                .as("the owner's second stream's bytes")
                                .isEqualTo(expected);
                        assertThat(same.statistics().getRequests())
                                .as("GETs the owner's second stream sent")
                                .isZero();
                    }
                } finally {
                    hold.release();
                    ownRead.join(WAIT);
                }
                ownGets = own.statistics().getRequests();
            }
            assertThat(owner.requests.awaitQuiet(WAIT)).isTrue();
            List<Sent> gets = owner.requests.gets();
            assertThat(gets)
                    .filteredOn(get -> get.signedBy().equals(minio.ownerAccessKey()))
                    .as("the owner's GETs: the first stream's alone (%d of them held)", hold.heldInAll())
                    .hasSize(Math.toIntExact(ownGets));
            assertThat(gets)
                    .filteredOn(get -> !get.signedBy().equals(minio.ownerAccessKey()))
                    .as("the guest's GETs")
                    .isNotEmpty()
                    .extracting(Sent::signedBy)
                    .containsOnly(minio.guestAccessKey());
        }
    }

    // ---- A3 --------------------------------------------------------------------------------------------------------

    @Test
    void anSseCustomerKeyIsAnIdentity() throws Exception {
        sseCustomerKeys(new Transcript());
    }

    /**
     * Before and after a stream with the right SSE-C key read the object: streams without a key are answered 400,
     * streams with another key 403, whether they know the length and ETag or not, and whatever kind of read they try;
     * the right key reads every byte, and its second stream is served from the cache.
     */
    private static void sseCustomerKeys(Transcript transcript) throws Exception {
        byte[] expected = DATA.get(ENCRYPTED);
        String etag = ETAGS.get(ENCRYPTED);
        OpenOptions rightKey =
                OpenOptions.builder().sseCustomerKey(minio.sseKey()).build();
        OpenOptions wrongKey =
                OpenOptions.builder().sseCustomerKey(minio.otherSseKey()).build();
        Map<OpenOptions, Integer> refused = new LinkedHashMap<>();
        refused.put(OpenOptions.defaults(), 400);
        refused.put(wrongKey, 403);
        refused.put(OpenOptions.builder().length(expected.length).etag(etag).build(), 400);
        refused.put(wrongKey.toBuilder().length(expected.length).etag(etag).build(), 403);
        transcript.value(rightKey);
        try (Reading owner = new Reading(minio.owner(), StreamConfig.defaults())) {
            for (String pass : List.of("before", "after")) {
                for (Map.Entry<OpenOptions, Integer> entry : refused.entrySet()) {
                    OpenOptions options = entry.getKey();
                    transcript.value(options);
                    for (Refusals.ReadKind kind : Refusals.ReadKind.values()) {
                        try (SeekableS3InputStream stream = owner.factory.open(ENCRYPTED, options)) {
                            Refusals.assertRefused(stream, kind, expected.length, entry.getValue(), transcript);
                            transcript.value(stream);
                        }
                    }
                }
                try (SeekableS3InputStream stream = owner.factory.open(ENCRYPTED, rightKey)) {
                    assertThat(readAll(stream))
                            .as("the right key reads every byte (%s)", pass)
                            .isEqualTo(expected);
                    transcript.value(stream);
                    transcript.value(stream.statistics());
                }
                owner.quiet();
            }
            try (SeekableS3InputStream stream = owner.factory.open(ENCRYPTED, rightKey)) {
                assertThat(readAll(stream)).isEqualTo(expected);
            }
            assertThat(owner.requests.awaitQuiet(WAIT)).isTrue();
            assertThat(owner.requests.all())
                    .as("requests of the right key's second stream: it is served what the first cached")
                    .isEmpty();
            transcript.value(owner.factory.statistics());
        }
    }

    // ---- A4 --------------------------------------------------------------------------------------------------------

    @Test
    void sessionCredentialsReadWhatTheGuestMayAndNothingTheOwnerCached() throws Exception {
        sessionCredentials(new Transcript());
    }

    /**
     * The guest's temporary credentials (an STS session) as a stream's own: they read the shared bucket, and are
     * refused the owner's object before and after the owner cached it, every request signed by the session.
     */
    private static void sessionCredentials(Transcript transcript) throws Exception {
        OpenOptions asSession = OpenOptions.builder()
                .credentials(StaticCredentialsProvider.create(session))
                .build();
        byte[] privateBytes = DATA.get(PRIVATE);
        List<OpenOptions> refused = List.of(
                asSession,
                asSession.toBuilder()
                        .length(privateBytes.length)
                        .etag(ETAGS.get(PRIVATE))
                        .build());
        try (Reading owner = new Reading(minio.owner(), StreamConfig.defaults())) {
            for (String pass : List.of("before", "after")) {
                if (pass.equals("after")) {
                    try (SeekableS3InputStream own = owner.factory.open(PRIVATE)) {
                        assertThat(readAll(own)).isEqualTo(privateBytes);
                    }
                    owner.quiet();
                }
                for (OpenOptions options : refused) {
                    transcript.value(options);
                    for (Refusals.ReadKind kind : Refusals.ReadKind.values()) {
                        try (SeekableS3InputStream stream = owner.factory.open(PRIVATE, options)) {
                            Refusals.assertRefused(stream, kind, privateBytes.length, 403, transcript);
                            transcript.value(stream);
                        }
                    }
                }
                try (SeekableS3InputStream stream = owner.factory.open(SHARED, asSession)) {
                    assertThat(readAll(stream))
                            .as("the session reads the shared bucket (%s)", pass)
                            .isEqualTo(DATA.get(SHARED));
                    transcript.value(stream);
                    transcript.value(stream.statistics());
                }
                assertThat(owner.requests.awaitQuiet(WAIT)).isTrue();
                assertThat(owner.requests.all())
                        .as("requests of the session's streams (%s the owner read)", pass)
                        .isNotEmpty()
                        .extracting(Sent::signedBy)
                        .containsOnly(session.accessKeyId());
                owner.requests.clear();
            }
            transcript.value(owner.factory.statistics());
        }
    }

    // ---- A5 --------------------------------------------------------------------------------------------------------

    /**
     * A factory whose client signs as the guest lists the owner's prefix: 403, and not one entry. The owner's factory
     * lists it, which tells the owner's streams each object's length and ETag (opening sends nothing), but not a guest
     * stream of that factory, which asks S3 and is refused.
     */
    @Test
    void aListingIsToldToTheIdentityThatListedOnly() throws Exception {
        List<S3Location> prefix = List.of(new S3Location(OWNER_BUCKET, "private/"));
        try (Reading guest = new Reading(minio.guest(), StreamConfig.defaults())) {
            List<ListedObject> seen = new ArrayList<>();
            Throwable failure;
            try (ObjectListing listing = guest.factory.list(prefix)) {
                failure = catchThrowable(() -> {
                    for (Optional<ListedObject> next = listing.next(); next.isPresent(); next = listing.next()) {
                        seen.add(next.get());
                    }
                });
            }
            assertThat(seen).as("what the guest's listing yielded").isEmpty();
            Refusals.assertStatus(failure, 403, "the guest's listing", new Transcript());
            assertThat(guest.requests.awaitQuiet(WAIT)).isTrue();
            assertThat(guest.requests.all())
                    .isNotEmpty()
                    .extracting(Sent::signedBy)
                    .containsOnly(minio.guestAccessKey());
        }
        try (Reading owner = new Reading(minio.owner(), StreamConfig.defaults())) {
            List<ListedObject> listed;
            try (ObjectListing listing = owner.factory.list(prefix)) {
                listed = listing.toList();
            }
            assertThat(listed)
                    .extracting(ListedObject::location, ListedObject::length, ListedObject::etag)
                    .containsExactlyInAnyOrder(
                            tuple(PRIVATE, (long) OBJECT_SIZE, ETAGS.get(PRIVATE)),
                            tuple(PRIVATE_PARQUET, (long) PARQUET_SIZE, ETAGS.get(PRIVATE_PARQUET)));
            owner.quiet();
            try (SeekableS3InputStream own = owner.factory.open(PRIVATE)) {
                assertThat(own.length()).isEqualTo(OBJECT_SIZE);
            }
            assertThat(owner.requests.all())
                    .as("the owner's stream knew the length from the listing")
                    .isEmpty();

            OpenOptions asGuest =
                    OpenOptions.builder().credentials(minio.guest()).build();
            try (SeekableS3InputStream stream = owner.factory.open(PRIVATE, asGuest)) {
                Refusals.assertStatus(catchThrowable(stream::length), 403, "the guest's length()", new Transcript());
            }
            try (SeekableS3InputStream stream = owner.factory.open(PRIVATE, asGuest)) {
                Refusals.assertRefused(stream, Refusals.ReadKind.READ_FULLY, OBJECT_SIZE, 403, new Transcript());
            }
            assertThat(owner.requests.awaitQuiet(WAIT)).isTrue();
            assertThat(owner.requests.all())
                    .isNotEmpty()
                    .extracting(Sent::signedBy)
                    .containsOnly(minio.guestAccessKey());
        }
    }

    // ---- C ---------------------------------------------------------------------------------------------------------

    /**
     * The scenarios of the guest, the SSE-C keys and the session run again with every {@code io.rangefetch} logger at
     * {@code TRACE}: no form of any secret is in what Rangefetch logged (messages, arguments, exceptions), in the
     * exceptions its reads threw (whole stack traces, causes and suppressed ones) nor in the {@code toString} of its
     * streams, options, statistics and factories. The capture holds DEBUG lines (a guest's failed footer fetch at open
     * is logged at DEBUG), so logging was on.
     */
    @Test
    void noSecretIsInWhatRangefetchLogsThrowsOrPrints() throws Exception {
        Transcript transcript = new Transcript();
        List<LogCapture.Event> logged;
        List<LogCapture.Event> debug;
        try (LogCapture capture = LogCapture.start("io.rangefetch")) {
            guestStreamsOfTheOwnersFactory(transcript);
            sseCustomerKeys(transcript);
            sessionCredentials(transcript);
            logged = capture.events();
            debug = capture.debugEvents();
        }
        assertThat(debug)
                .as("DEBUG and TRACE lines of io.rangefetch while the scenarios ran (logging was on)")
                .hasSizeGreaterThanOrEqualTo(MIN_DEBUG_LINES);
        assertThat(transcript.texts())
                .as("exceptions and toString()s the scenarios saw")
                .isNotEmpty();

        Map<String, String> secrets = new LinkedHashMap<>();
        List<String> fixtureSecrets = minio.secrets();
        for (int i = 0; i < fixtureSecrets.size(); i++) {
            secrets.put("secret #" + i + " of the fixture", fixtureSecrets.get(i));
        }
        List<String> sessionSecrets = TwoPrincipalMinio.sessionSecrets(session);
        secrets.put("the session's secret key", sessionSecrets.get(0));
        secrets.put("the session's token", sessionSecrets.get(1));

        List<String> said = new ArrayList<>();
        logged.forEach(event -> said.add(event.toString()));
        said.addAll(transcript.texts());
        List<String> leaks = new ArrayList<>();
        for (Map.Entry<String, String> secret : secrets.entrySet()) {
            for (String form : formsOf(secret.getValue())) {
                for (String text : said) {
                    if (text.contains(form)) {
                        // the leak is named, not printed: the report would leak it again
                        leaks.add(secret.getKey() + " in: " + text.replace(form, "<" + secret.getKey() + ">"));
                    }
                }
            }
        }
        assertThat(leaks)
                .as(
                        "secrets found in %d logged lines and %d exceptions and toString()s",
                        logged.size(), transcript.size())
                .isEmpty();
    }

    /**
     * The forms a secret may leak in, as {@link TwoPrincipalMinio#formsOf} lists them (as it is, base64 of its text,
     * URL-encoded). Computed here: {@code formsOf} builds them with {@code Set.of}, which throws when two forms are
     * equal, as they are for any secret URL encoding leaves alone (the root's {@code minioadmin-secret}, and a random
     * secret without '+' or '/').
     */
    private static Set<String> formsOf(String secret) {
        Set<String> forms = new LinkedHashSet<>();
        forms.add(secret);
        forms.add(Base64.getEncoder().encodeToString(secret.getBytes(UTF_8)));
        forms.add(URLEncoder.encode(secret, UTF_8));
        return forms;
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    private static byte[] readAll(SeekableS3InputStream stream) throws IOException {
        byte[] bytes = new byte[Math.toIntExact(stream.length())];
        stream.readFully(0, bytes, 0, bytes.length);
        return bytes;
    }

    /** A factory over a sync client of its own that signs as {@code signer}, every request recorded. */
    private static final class Reading implements AutoCloseable {
        final SignedRequests requests = new SignedRequests();
        final S3Client client;
        final StreamFactory factory;

        Reading(AwsCredentialsProvider signer, StreamConfig config, ExecutionInterceptor... more) {
            ExecutionInterceptor[] interceptors = new ExecutionInterceptor[more.length + 1];
            interceptors[0] = requests;
            System.arraycopy(more, 0, interceptors, 1, more.length);
            this.client = S3Clients.syncWithoutSdkRetries(minio.server(), signer, interceptors);
            this.factory = StreamFactory.create(client, config);
        }

        /** Waits until no request is in flight, then forgets those recorded: the next phase's are counted alone. */
        void quiet() throws InterruptedException {
            assertThat(requests.awaitQuiet(WAIT)).as("requests answered").isTrue();
            requests.clear();
        }

        @Override
        public void close() {
            try {
                factory.close();
            } finally {
                client.close();
            }
        }
    }
}
