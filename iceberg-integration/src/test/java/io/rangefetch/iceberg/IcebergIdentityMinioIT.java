package io.rangefetch.iceberg;

import static io.rangefetch.testing.server.TwoPrincipalMinio.OWNER_BUCKET;
import static io.rangefetch.testing.server.TwoPrincipalMinio.SHARED_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.SharedFactories;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.testing.TestData;
import io.rangefetch.testing.server.ThreadLeakChecker;
import io.rangefetch.testing.server.TwoPrincipalMinio;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.aws.HttpClientProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.io.FileRange;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.StorageCredential;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RangefetchS3FileIO}s of different identities on one real MinIO over TLS ({@link TwoPrincipalMinio}), made as
 * a catalog makes them (properties naming the endpoint, path style, keys and region; storage credentials set before
 * {@code initialize}): an owner who may read both buckets, a guest who may read {@value TwoPrincipalMinio#SHARED_BUCKET}
 * only, and SSE-C keys. A FileIO of another identity (other keys, a storage credential of the guest's for the owner's
 * prefix, another SSE-C key or none) reads through factories of its own and is served nothing another read: S3 answers
 * it (403, or 400 without an SSE-C key), even when it knows the length the owner knows.
 *
 * <p>Errors as Iceberg's callers see them: a stream's reads throw the {@link IOException} of Rangefetch's stream (the
 * S3 status is an {@link HttpStatusException} in its cause chain); {@code InputFile.getLength()} throws an
 * {@link UncheckedIOException}.
 *
 * <p>Skipped where there is no {@code minio} or {@code rangefetch-minio-admin} binary; one MinIO for the whole class.
 * The JVM's default trust is pointed at MinIO's certificate while it runs, since Iceberg builds its S3 clients itself.
 */
class IcebergIdentityMinioIT {
    /** The size the issue measured its leak with. */
    private static final int OBJECT_SIZE = 2_109_497;

    private static final int SHARED_SIZE = 300_007;
    private static final String PRIVATE = "s3://" + OWNER_BUCKET + "/private/object.bin";
    private static final String SHARED = "s3://" + SHARED_BUCKET + "/open/object.bin";
    private static final String ENCRYPTED = "s3://" + SHARED_BUCKET + "/sse/object.bin";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration THREAD_GRACE = Duration.ofSeconds(10);
    private static final String RANGEFETCH_THREADS = "rangefetch-";

    private static final Map<String, byte[]> DATA = new HashMap<>();

    private static ThreadLeakChecker threads;
    private static TwoPrincipalMinio minio;

    @BeforeAll
    static void startMinioAndWriteTheObjects() throws IOException {
        assumeTrue(TwoPrincipalMinio.available(), "needs the minio and rangefetch-minio-admin binaries");
        threads = ThreadLeakChecker.snapshot();
        minio = TwoPrincipalMinio.start();
        write(PRIVATE, TestData.bytes(OBJECT_SIZE, 11), null);
        write(SHARED, TestData.bytes(SHARED_SIZE, 12), null);
        write(ENCRYPTED, TestData.bytes(OBJECT_SIZE, 13), minio.sseKey());
    }

    private static void write(String path, byte[] data, String sseKey) {
        io.rangefetch.client.S3Location location = RangefetchS3FileIO.parseLocation(path);
        minio.put(location.bucket(), location.key(), data, sseKey);
        DATA.put(path, data);
    }

    /** What the FileIOs of a test left lingering in the registry is closed: the next test starts cold. */
    @AfterEach
    void closeLingeringFactories() {
        SharedFactories.closeIdle();
    }

    @AfterAll
    static void stopMinio() {
        if (minio != null) {
            minio.close();
        }
        if (threads != null) {
            SharedFactories.closeIdle();
            threads.assertNoNewThreads(RANGEFETCH_THREADS, THREAD_GRACE);
        }
    }

    // ---- B1 --------------------------------------------------------------------------------------------------------

    /**
     * The owner's FileIO reads the private object (positioned and vectored); the guest's FileIO, handed the length the
     * owner knows as a manifest would hand it, gets no byte from any kind of read, and cannot learn the length either.
     * The two read through different factories.
     */
    @Test
    void aGuestFileIOGetsNoByteOfWhatTheOwnersFileIORead() throws Exception {
        byte[] expected = DATA.get(PRIVATE);
        try (RangefetchS3FileIO owner = fileIO(keys(minio.ownerAccessKey(), minio.ownerSecretKey()));
                RangefetchS3FileIO guest = fileIO(keys(minio.guestAccessKey(), minio.guestSecretKey()))) {
            try (SeekableInputStream stream =
                    owner.newInputFile(PRIVATE, expected.length).newStream()) {
                RangeReadable ranged = (RangeReadable) stream;
                byte[] whole = new byte[expected.length];
                ranged.readFully(0, whole, 0, whole.length);
                assertThat(whole).as("the owner's bytes").isEqualTo(expected);
                List<FileRange> ranges = ranges(expected.length);
                ranged.readVectored(ranges, ByteBuffer::allocate);
                for (FileRange range : ranges) {
                    ByteBuffer bytes = range.byteBuffer().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    assertThat(remaining(bytes))
                            .as("the owner's vectored read of %d bytes at %d", range.length(), range.offset())
                            .isEqualTo(Arrays.copyOfRange(
                                    expected,
                                    Math.toIntExact(range.offset()),
                                    Math.toIntExact(range.offset() + range.length())));
                }
            }
            assertRefused(guest, PRIVATE, expected.length, 403);
            assertThat(owner.factories()).isNotEmpty();
            assertThat(guest.factories())
                    .as("the guest's factories")
                    .isNotEmpty()
                    .doesNotContainAnyElementsOf(owner.factories());
        }
    }

    // ---- B2 --------------------------------------------------------------------------------------------------------

    /**
     * A FileIO with {@code s3.sse.type=custom} reads the SSE-C object whole, as Iceberg's own S3FileIO with the same
     * properties does; a FileIO without SSE properties is answered 400 and one with the other key 403, before and
     * after the right key's FileIO read it; and a wrong {@code s3.sse.md5} fails {@code initialize}, naming it.
     */
    @Test
    void anSseCustomerKeyFileIOReadsWithItsKeyAndNoOtherFileIOIsServedItsBytes() throws Exception {
        byte[] expected = DATA.get(ENCRYPTED);
        Map<String, String> plain = keys(minio.ownerAccessKey(), minio.ownerSecretKey());
        Map<String, String> rightKey = withSseKey(plain, minio.sseKey(), TwoPrincipalMinio.md5Of(minio.sseKey()));
        Map<String, String> otherKey =
                withSseKey(plain, minio.otherSseKey(), TwoPrincipalMinio.md5Of(minio.otherSseKey()));
        byte[] readByRangefetch = null;
        try (RangefetchS3FileIO right = fileIO(rightKey);
                RangefetchS3FileIO none = fileIO(plain);
                RangefetchS3FileIO other = fileIO(otherKey)) {
            for (String pass : List.of("before", "after")) {
                assertRefused(none, ENCRYPTED, expected.length, 400);
                assertRefused(other, ENCRYPTED, expected.length, 403);
                assertThat(right.newInputFile(ENCRYPTED).getLength())
                        .as("the length, %s", pass)
                        .isEqualTo(expected.length);
                try (SeekableInputStream stream =
                        right.newInputFile(ENCRYPTED, expected.length).newStream()) {
                    byte[] whole = new byte[expected.length];
                    ((RangeReadable) stream).readFully(0, whole, 0, whole.length);
                    assertThat(whole).as("the right key's bytes, %s", pass).isEqualTo(expected);
                    readByRangefetch = whole;
                }
            }
            assertThat(none.factories()).doesNotContainAnyElementsOf(right.factories());
            assertThat(other.factories()).doesNotContainAnyElementsOf(right.factories());
        }
        try (S3FileIO iceberg = new S3FileIO()) {
            iceberg.initialize(rightKey);
            try (SeekableInputStream stream = iceberg.newInputFile(ENCRYPTED).newStream()) {
                assertThat(stream.readAllBytes())
                        .as("Iceberg's own S3FileIO with the same properties reads what Rangefetch read")
                        .isEqualTo(readByRangefetch);
            }
        }

        Map<String, String> wrongMd5 = withSseKey(plain, minio.sseKey(), TwoPrincipalMinio.md5Of(minio.otherSseKey()));
        RangefetchS3FileIO mistaken = new RangefetchS3FileIO();
        Throwable failure;
        try {
            failure = catchThrowable(() -> mistaken.initialize(wrongMd5));
        } finally {
            mistaken.close();
        }
        assertThat(failure)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(S3FileIOProperties.SSE_MD5)
                .message()
                .doesNotContain(minio.sseKey());
    }

    // ---- B3 --------------------------------------------------------------------------------------------------------

    /**
     * A FileIO with the owner's properties and, for the owner's bucket, a storage credential holding the guest's keys
     * (as a catalog vends per-table credentials): it reads with the guest's keys there, so it is refused what the
     * owner's FileIO (the very same properties, no storage credential) read, and does not share the owner's
     * factories. Elsewhere it reads with the properties' keys.
     */
    @Test
    void aStorageCredentialOfTheGuestIsRefusedWhatTheOwnersFileIORead() throws Exception {
        byte[] expected = DATA.get(PRIVATE);
        Map<String, String> ownerKeys = keys(minio.ownerAccessKey(), minio.ownerSecretKey());
        try (RangefetchS3FileIO owner = fileIO(ownerKeys);
                RangefetchS3FileIO vended = new RangefetchS3FileIO()) {
            // in the order Iceberg's CatalogUtil.loadFileIO calls them
            vended.setCredentials(List.of(StorageCredential.create(
                    "s3://" + OWNER_BUCKET + "/",
                    Map.of(
                            S3FileIOProperties.ACCESS_KEY_ID,
                            minio.guestAccessKey(),
                            S3FileIOProperties.SECRET_ACCESS_KEY,
                            minio.guestSecretKey()))));
            vended.initialize(ownerKeys);

            try (SeekableInputStream stream =
                    owner.newInputFile(PRIVATE, expected.length).newStream()) {
                byte[] whole = new byte[expected.length];
                ((RangeReadable) stream).readFully(0, whole, 0, whole.length);
                assertThat(whole).as("the owner's bytes").isEqualTo(expected);
            }
            assertRefused(vended, PRIVATE, expected.length, 403);
            try (SeekableInputStream stream =
                    vended.newInputFile(SHARED, SHARED_SIZE).newStream()) {
                assertThat(stream.readAllBytes())
                        .as("the shared bucket, read with the properties' keys")
                        .isEqualTo(DATA.get(SHARED));
            }
            assertThat(vended.factories())
                    .as("the factories of the FileIO with a storage credential")
                    .isNotEmpty()
                    .doesNotContainAnyElementsOf(owner.factories());
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    /** The catalog properties of IcebergEntryPoint, with these keys. */
    private static Map<String, String> keys(String accessKey, String secretKey) {
        Map<String, String> properties = new HashMap<>();
        properties.put("s3.endpoint", minio.server().endpoint().toString());
        properties.put("s3.path-style-access", "true");
        properties.put(S3FileIOProperties.ACCESS_KEY_ID, accessKey);
        properties.put(S3FileIOProperties.SECRET_ACCESS_KEY, secretKey);
        properties.put("client.region", minio.server().region());
        // Iceberg keeps its Apache HTTP clients in a JVM-wide cache keyed by their settings: a client another test
        // class of this JVM cached before this one pointed the JVM's trust at MinIO's certificate would keep the
        // trust it was built with and refuse the handshake. A setting no other class uses makes Iceberg build one now.
        properties.put(HttpClientProperties.APACHE_MAX_CONNECTIONS, "47");
        return Map.copyOf(properties);
    }

    private static Map<String, String> withSseKey(Map<String, String> properties, String key, String md5) {
        Map<String, String> withKey = new HashMap<>(properties);
        withKey.put(S3FileIOProperties.SSE_TYPE, S3FileIOProperties.SSE_TYPE_CUSTOM);
        withKey.put(S3FileIOProperties.SSE_KEY, key);
        withKey.put(S3FileIOProperties.SSE_MD5, md5);
        return Map.copyOf(withKey);
    }

    private static RangefetchS3FileIO fileIO(Map<String, String> properties) {
        RangefetchS3FileIO io = new RangefetchS3FileIO();
        io.initialize(properties);
        return io;
    }

    private static List<FileRange> ranges(int objectLength) {
        return List.of(
                new FileRange(new CompletableFuture<>(), 1_000, 5_000),
                new FileRange(new CompletableFuture<>(), objectLength / 2, 70_000),
                new FileRange(new CompletableFuture<>(), objectLength - 3_000, 3_000));
    }

    private static byte[] remaining(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /**
     * Every kind of read of {@code path} through {@code io}, on a fresh stream of an input file given {@code length}
     * each time, fails with {@code status} and leaves the caller's buffers empty; {@code getLength()} of an input file
     * given no length fails with it too.
     */
    private static void assertRefused(RangefetchS3FileIO io, String path, int length, int status) throws Exception {
        String what = path + " through a FileIO of another identity";
        try (SeekableInputStream stream = io.newInputFile(path, length).newStream()) {
            assertStatus(catchThrowable(stream::read), IOException.class, status, "read() of " + what);
        }
        try (SeekableInputStream stream = io.newInputFile(path, length).newStream()) {
            byte[] buffer = new byte[8192];
            assertStatus(
                    catchThrowable(() -> ((RangeReadable) stream).readFully(length / 2, buffer, 0, buffer.length)),
                    IOException.class,
                    status,
                    "readFully of " + what);
            assertThat(buffer).as("the buffer of readFully of %s", what).containsOnly(0);
        }
        try (SeekableInputStream stream = io.newInputFile(path, length).newStream()) {
            byte[] buffer = new byte[8192];
            assertStatus(
                    catchThrowable(() -> ((RangeReadable) stream).readTail(buffer, 0, buffer.length)),
                    IOException.class,
                    status,
                    "readTail of " + what);
            assertThat(buffer).as("the buffer of readTail of %s", what).containsOnly(0);
        }
        try (SeekableInputStream stream = io.newInputFile(path, length).newStream()) {
            List<FileRange> ranges = ranges(length);
            List<ByteBuffer> buffers = new ArrayList<>();
            Throwable thrown = catchThrowable(() -> ((RangeReadable) stream).readVectored(ranges, size -> {
                ByteBuffer buffer = ByteBuffer.allocate(size);
                buffers.add(buffer);
                return buffer;
            }));
            if (thrown != null) {
                assertStatus(thrown, IOException.class, status, "readVectored of " + what);
            }
            for (FileRange range : ranges) {
                assertStatus(failureOf(range), IOException.class, status, "a range of readVectored of " + what);
            }
            for (ByteBuffer buffer : buffers) {
                assertThat(buffer.array())
                        .as("a buffer of readVectored of %s", what)
                        .containsOnly(0);
            }
        }
        assertStatus(
                catchThrowable(() -> io.newInputFile(path).getLength()),
                UncheckedIOException.class,
                status,
                "getLength() of " + what);
    }

    private static Throwable failureOf(FileRange range) throws InterruptedException {
        try {
            ByteBuffer served = range.byteBuffer().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            throw new AssertionError("range at " + range.offset() + " was served " + served.remaining() + " bytes");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("range at " + range.offset() + " neither served nor failed in " + WAIT, e);
        }
    }

    private static void assertStatus(Throwable failure, Class<? extends Throwable> type, int status, String what) {
        assertThat(failure).as("%s fails", what).isNotNull();
        assertThat(failure)
                .as(() -> what + " fails with a " + type.getSimpleName() + ":\n" + stackTrace(failure))
                .isInstanceOf(type);
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof HttpStatusException http) {
                assertThat(http.statusCode())
                        .as(() -> what + " fails with HTTP " + status + ":\n" + stackTrace(failure))
                        .isEqualTo(status);
                return;
            }
        }
        fail("%s: no HTTP status in the cause chain of%n%s", what, stackTrace(failure));
    }

    private static String stackTrace(Throwable failure) {
        StringWriter text = new StringWriter();
        try (PrintWriter writer = new PrintWriter(text)) {
            failure.printStackTrace(writer);
        }
        return text.toString();
    }
}
