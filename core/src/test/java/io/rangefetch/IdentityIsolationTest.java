package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ListedObject;
import io.rangefetch.client.S3Location;
import io.rangefetch.client.SseCustomerKey;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.ReaderThreads;
import io.rangefetch.testing.StreamFixture;
import io.rangefetch.testing.TestData;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * One factory, several identities: a stream is served only what its own identity (its credentials, its SSE-C key)
 * fetched, whatever another stream of the factory cached, learned, listed or is fetching at that moment, and every
 * request it causes is signed with its own credentials. The in-memory client answers as S3 does: 403 for a bucket the
 * signer may not read, 400 for an SSE-C object without its key, 403 with a wrong key.
 */
class IdentityIsolationTest {
    private static final String SHARED = "shared";
    private static final String PRIVATE = "private";
    private static final int MIB = StreamFixture.MIB;

    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    @RegisterExtension
    final ReaderThreads threads = new ReaderThreads();

    private final InMemoryObjectClient client = fixture.client();
    // may read both buckets; the client signs as it when a stream names no credentials
    private final AwsCredentialsProvider owner = keys("AKIDOWNER", "owner-secret");
    // may read the shared bucket only
    private final AwsCredentialsProvider guest = keys("AKIDGUEST", "guest-secret");

    @BeforeEach
    void users() {
        client.addUser("AKIDOWNER", "owner-secret", null, Set.of(SHARED, PRIVATE));
        client.addUser("AKIDGUEST", "guest-secret", null, Set.of(SHARED));
        client.signWith(owner);
    }

    private static AwsCredentialsProvider keys(String accessKeyId, String secret) {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secret));
    }

    private static OpenOptions as(AwsCredentialsProvider credentials) {
        return OpenOptions.builder().credentials(credentials).build();
    }

    private static byte[] readAll(SeekableS3InputStream stream) throws IOException {
        byte[] bytes = new byte[Math.toIntExact(stream.length())];
        stream.readFully(0, bytes, 0, bytes.length);
        return bytes;
    }

    @Test
    void aStreamOfAnotherPrincipalIsServedNothingTheOwnerCachedAndAsksUnderItsOwnCredentials() throws Exception {
        byte[] data = TestData.bytes(3 * MIB, 1);
        String etag = client.put(PRIVATE, "t.bin", data);
        StreamFactory factory = fixture.factory();
        S3Location location = new S3Location(PRIVATE, "t.bin");
        try (SeekableS3InputStream own = factory.open(location)) {
            assertThat(readAll(own)).isEqualTo(data);
        }
        fixture.awaitQuiet();
        client.clearLog();

        // the guest even knows the length and the ETag (as a file status handed to openFile would tell it)
        OpenOptions knowing = OpenOptions.builder()
                .credentials(guest)
                .length(data.length)
                .etag(etag)
                .build();
        try (SeekableS3InputStream other = factory.open(location, knowing)) {
            assertThatThrownBy(() -> other.readFully(0, new byte[10], 0, 10))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("403");
            FileRange range = FileRange.of(MIB, 100);
            assertThatThrownBy(() -> {
                        other.readVectored(List.of(range), ByteBuffer::allocate);
                        range.data().get(30, TimeUnit.SECONDS);
                    })
                    .hasStackTraceContaining("403");
        }
        // without what the owner learned, not even the length is told
        try (SeekableS3InputStream other = factory.open(location, as(guest))) {
            assertThatThrownBy(other::length).isInstanceOf(IOException.class).hasMessageContaining("403");
            assertThatThrownBy(other::read).isInstanceOf(IOException.class).hasMessageContaining("403");
        }
        fixture.awaitQuiet();
        assertThat(client.requests())
                .as("every request the guest's streams caused went out under the guest's credentials")
                .isNotEmpty()
                .extracting(Request::signedBy)
                .containsOnly("AKIDGUEST");
    }

    @Test
    void aGetInFlightForOnePrincipalIsNotJoinedByAnother() throws Exception {
        byte[] data = TestData.bytes(2 * MIB, 2);
        String etag = client.put(PRIVATE, "f.bin", data);
        StreamFactory factory = fixture.factory();
        S3Location location = new S3Location(PRIVATE, "f.bin");
        OpenOptions known = OpenOptions.builder().length(data.length).etag(etag).build();
        BodyHold held = client.holdBodies(request -> request.isGet() && "AKIDOWNER".equals(request.signedBy()));
        try (SeekableS3InputStream own = factory.open(location, known)) {
            Future<byte[]> ownRead = threads.submit(() -> readAll(own));
            assertThat(held.awaitHeld(1)).isTrue();
            // the owner's GET is in flight, its blocks claimed: the guest, knowing the version, must not join them
            try (SeekableS3InputStream other =
                    factory.open(location, known.toBuilder().credentials(guest).build())) {
                assertThatThrownBy(() -> readAll(other))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("403");
            }
            // while a second stream of the owner's principal (another provider, the same keys) does join them
            try (SeekableS3InputStream same = factory.open(
                    location,
                    known.toBuilder()
                            .credentials(keys("AKIDOWNER", "owner-secret"))
                            .build())) {
                Future<byte[]> sameRead = threads.submit(() -> readAll(same));
                held.release();
                assertThat(ownRead.get(30, TimeUnit.SECONDS)).isEqualTo(data);
                assertThat(sameRead.get(30, TimeUnit.SECONDS)).isEqualTo(data);
            }
        } finally {
            held.release();
        }
        fixture.awaitQuiet();
        assertThat(client.gets())
                .filteredOn(request -> "AKIDOWNER".equals(request.signedBy()))
                .as("the owner's second stream joined the first's GETs: nothing fetched twice")
                .hasSize(held.held());
    }

    @Test
    void sseCustomerKeysAreIdentities() throws Exception {
        SseCustomerKey right = SseCustomerKey.ofBase64(Base64.getEncoder().encodeToString(TestData.bytes(32, 3)));
        SseCustomerKey wrong = SseCustomerKey.ofBase64(Base64.getEncoder().encodeToString(TestData.bytes(32, 4)));
        byte[] data = TestData.bytes(2 * MIB + 17, 5);
        String etag = client.putEncrypted(SHARED, "enc.parquet", data, right);
        StreamFactory factory = fixture.factory();
        S3Location location = new S3Location(SHARED, "enc.parquet");
        OpenOptions withKey = OpenOptions.builder().sseCustomerKey(right).build();
        List<Integer> refusals = new ArrayList<>();
        for (int pass = 0; pass < 2; pass++) { // before and after a stream with the key read it
            for (OpenOptions keyless : List.of(
                    OpenOptions.defaults(),
                    OpenOptions.builder().sseCustomerKey(wrong).build(),
                    OpenOptions.builder().length(data.length).etag(etag).build(),
                    OpenOptions.builder()
                            .sseCustomerKey(wrong)
                            .length(data.length)
                            .etag(etag)
                            .build())) {
                try (SeekableS3InputStream stream = factory.open(location, keyless)) {
                    IOException failure = (IOException) org.assertj.core.api.Assertions.catchThrowable(
                            () -> stream.readFully(0, new byte[100], 0, 100));
                    assertThat(failure).as("%s, pass %d", keyless, pass).isNotNull();
                    refusals.add(statusOf(failure));
                }
            }
            try (SeekableS3InputStream stream = factory.open(location, withKey)) {
                assertThat(readAll(stream)).isEqualTo(data);
            }
            fixture.awaitQuiet();
        }
        assertThat(refusals).containsExactly(400, 403, 400, 403, 400, 403, 400, 403);
        client.clearLog();
        try (SeekableS3InputStream stream = factory.open(location, withKey)) {
            assertThat(readAll(stream)).isEqualTo(data);
        }
        // filtered by key: a keyless stream's GET abandoned when its read failed may still reach the server now
        assertThat(client.gets())
                .filteredOn(request -> right.equals(request.sseCustomerKey()))
                .as("the key's holder is served what it cached")
                .isEmpty();
    }

    private static int statusOf(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof HttpStatusException status) {
                return status.statusCode();
            }
        }
        throw new AssertionError("no HTTP status in " + failure, failure);
    }

    @Test
    void whatAListingFoundIsToldToItsOwnIdentityOnly() throws Exception {
        byte[] data = TestData.bytes(100_000, 6);
        client.put(PRIVATE, "p/one.bin", data);
        StreamFactory factory = fixture.factory();
        List<ListedObject> listed = new ArrayList<>();
        try (ObjectListing listing = factory.list(List.of(new S3Location(PRIVATE, "p/")))) {
            listed.addAll(listing.toList());
        }
        assertThat(listed).hasSize(1);
        client.clearLog();
        try (SeekableS3InputStream other = factory.open(new S3Location(PRIVATE, "p/one.bin"), as(guest))) {
            assertThatThrownBy(other::length).isInstanceOf(IOException.class).hasMessageContaining("403");
        }
        try (SeekableS3InputStream own = factory.open(new S3Location(PRIVATE, "p/one.bin"))) {
            assertThat(own.length()).isEqualTo(data.length);
        }
        assertThat(client.count("HEAD"))
                .as("the guest asked, and was refused; the owner knew")
                .isEqualTo(1);
    }

    @Test
    void aRefreshedSessionOfOneProviderIsTheSameIdentityAndAnotherPrincipalIsNot() throws Exception {
        byte[] data = TestData.bytes(MIB, 7);
        client.put(SHARED, "s.bin", data);
        client.addUser("ASIAFIRST", "first-secret", "first-token", Set.of(SHARED));
        RotatingCredentials role =
                new RotatingCredentials(AwsSessionCredentials.create("ASIAFIRST", "first-secret", "first-token"));
        StreamFactory factory = fixture.factory();
        S3Location location = new S3Location(SHARED, "s.bin");
        try (SeekableS3InputStream stream = factory.open(location, as(role))) {
            assertThat(readAll(stream)).isEqualTo(data);
        }
        fixture.awaitQuiet();
        // the session expires and the provider renews it: another access key id, the same principal
        client.removeUser("ASIAFIRST");
        client.addUser("ASIASECOND", "second-secret", "second-token", Set.of(SHARED));
        role.now = AwsSessionCredentials.create("ASIASECOND", "second-secret", "second-token");
        client.clearLog();
        try (SeekableS3InputStream stream = factory.open(location, as(role))) {
            assertThat(readAll(stream)).isEqualTo(data);
        }
        assertThat(client.gets())
                .as("served from what the first session cached")
                .isEmpty();
        // another provider whose session happens to be renewed the same way is another principal as far as can be told
        try (SeekableS3InputStream stream = factory.open(
                location,
                as(StaticCredentialsProvider.create(
                        AwsSessionCredentials.create("ASIASECOND", "second-secret", "second-token"))))) {
            assertThat(readAll(stream)).isEqualTo(data);
        }
        fixture.awaitQuiet();
        assertThat(client.gets()).isNotEmpty().extracting(Request::signedBy).containsOnly("ASIASECOND");
    }

    @Test
    void credentialsThatDoNotResolveShareNothingAndFailAsTheClientDoes() throws Exception {
        byte[] data = TestData.bytes(MIB, 8);
        client.put(SHARED, "n.bin", data);
        StreamFactory factory = fixture.factory();
        S3Location location = new S3Location(SHARED, "n.bin");
        try (SeekableS3InputStream stream = factory.open(location)) {
            assertThat(readAll(stream)).isEqualTo(data);
        }
        AwsCredentialsProvider broken = () -> {
            throw new IllegalStateException("no credentials anywhere");
        };
        try (SeekableS3InputStream stream = factory.open(location, as(broken))) {
            assertThatThrownBy(() -> stream.readFully(0, new byte[10], 0, 10)).isInstanceOf(IOException.class);
        }
    }

    /** A provider whose credentials a test renews, as a refreshing provider renews an expiring session. */
    private static final class RotatingCredentials implements AwsCredentialsProvider {
        volatile AwsCredentials now;

        RotatingCredentials(AwsCredentials first) {
            this.now = first;
        }

        @Override
        public AwsCredentials resolveCredentials() {
            return now;
        }
    }
}
