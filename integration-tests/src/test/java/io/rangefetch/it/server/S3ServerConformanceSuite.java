package io.rangefetch.it.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.testing.ProxiedS3;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.S3Clients;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What Rangefetch relies on from an S3 server, checked with the plain SDK and nothing of ours: if one
 * of these fails on a backend, the Rangefetch suites' failures there are the server's, not the
 * library's. Each check names the behaviour the library depends on.
 */
abstract class S3ServerConformanceSuite extends S3ServerTestBase {

    // not a multiple of anything, so off-by-one range arithmetic shows
    private static final int LENGTH = 1024 * 1024 + 17;

    private final byte[] content = randomBytes(LENGTH, 42);
    private S3Client s3;
    private String objectKey;
    private String objectETag;

    @BeforeAll
    void writeObject() {
        s3 = S3Clients.sync(server());
        objectKey = key("conformance/object.bin");
        objectETag = put(objectKey, content);
    }

    @AfterAll
    void deleteObjects() {
        if (s3 != null) {
            try (S3Client client = s3) {
                client.listObjectsV2Paginator(list -> list.bucket(bucket()).prefix(key("")))
                        .contents()
                        .forEach(object -> client.deleteObject(
                                delete -> delete.bucket(bucket()).key(object.key())));
            }
        }
    }

    @Test
    void closedRangeReturnsExactlyThoseBytesAndTheTotalLength() {
        ResponseBytes<GetObjectResponse> got = get("bytes=1000-1999");

        assertThat(got.asByteArray()).isEqualTo(slice(1000, 2000));
        assertThat(got.response().contentLength()).isEqualTo(1000L);
        assertThat(got.response().contentRange()).isEqualTo("bytes 1000-1999/" + LENGTH);
    }

    @Test
    void rangeEndPastTheEndIsCutAtTheEnd() {
        // how a stream opened without a HEAD learns the length: its first GET may ask for more than there is
        ResponseBytes<GetObjectResponse> got = get("bytes=" + (LENGTH - 100) + "-" + (LENGTH + 8191));

        assertThat(got.asByteArray()).isEqualTo(slice(LENGTH - 100, LENGTH));
        assertThat(got.response().contentRange())
                .isEqualTo("bytes " + (LENGTH - 100) + "-" + (LENGTH - 1) + "/" + LENGTH);
    }

    @Test
    void singlePartETagIsTheQuotedMd5OfTheContent() {
        assertThat(objectETag).isEqualTo('"' + md5Hex(content) + '"');
        assertThat(get("bytes=0-0").response().eTag()).isEqualTo(objectETag);
    }

    @Test
    void headGivesLengthAndETag() {
        HeadObjectResponse head =
                s3.headObject(request -> request.bucket(bucket()).key(objectKey));

        assertThat(head.contentLength()).isEqualTo((long) LENGTH);
        assertThat(head.eTag()).isEqualTo(objectETag);
    }

    @Test
    void ifMatchWithTheCurrentETagServesTheRange() {
        ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(request ->
                request.bucket(bucket()).key(objectKey).range("bytes=10-19").ifMatch(objectETag));

        assertThat(got.asByteArray()).isEqualTo(slice(10, 20));
    }

    @Test
    void ifMatchWithAnOldETagFailsWith412() {
        // the ETag pinning case: the object was overwritten after the stream learnt its ETag
        String overwritten = key("conformance/overwritten.bin");
        String oldETag = put(overwritten, randomBytes(4096, 1));
        String newETag = put(overwritten, randomBytes(4096, 2));
        assertThat(newETag).isNotEqualTo(oldETag);

        assertThatThrownBy(() -> s3.getObjectAsBytes(request -> request.bucket(bucket())
                        .key(overwritten)
                        .range("bytes=0-99")
                        .ifMatch(oldETag)))
                .asInstanceOf(type(S3Exception.class))
                .satisfies(e -> assertThat(e.statusCode()).as("HTTP status").isEqualTo(412))
                .satisfies(e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("PreconditionFailed"));
    }

    @Test
    void rangeStartingPastTheEndFailsWith416() {
        assertThatThrownBy(() -> get("bytes=" + LENGTH + "-" + (LENGTH + 99)))
                .asInstanceOf(type(S3Exception.class))
                .satisfies(e -> assertThat(e.statusCode()).as("HTTP status").isEqualTo(416))
                .satisfies(e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidRange"));
    }

    @Test
    void anyRangeOfAnEmptyObjectFailsWith416() {
        // a stream opened on an empty object without a HEAD sees this on its first GET
        String empty = key("conformance/empty.bin");
        put(empty, new byte[0]);

        assertThatThrownBy(() -> s3.getObjectAsBytes(
                        request -> request.bucket(bucket()).key(empty).range("bytes=0-99")))
                .asInstanceOf(type(S3Exception.class))
                .satisfies(e -> assertThat(e.statusCode()).as("HTTP status").isEqualTo(416));
    }

    @Test
    void suffixRangeReturnsTheLastBytesAndTheTotalLength() {
        ResponseBytes<GetObjectResponse> got = get("bytes=-1000");

        assertThat(got.asByteArray()).isEqualTo(slice(LENGTH - 1000, LENGTH));
        assertThat(got.response().contentRange())
                .isEqualTo("bytes " + (LENGTH - 1000) + "-" + (LENGTH - 1) + "/" + LENGTH);
    }

    @Test
    void suffixRangeLongerThanTheObjectReturnsAllOfIt() {
        // readTail on a file shorter than the tail it asks for (a footer read of a tiny Parquet file)
        ResponseBytes<GetObjectResponse> got = get("bytes=-" + (LENGTH + 1000));

        assertThat(got.asByteArray()).isEqualTo(content);
        assertThat(got.response().contentRange()).isEqualTo("bytes 0-" + (LENGTH - 1) + "/" + LENGTH);
    }

    @Test
    void missingKeyIsNoSuchKeyWith404() {
        String missing = key("conformance/missing.bin");

        assertThatThrownBy(() ->
                        s3.getObjectAsBytes(request -> request.bucket(bucket()).key(missing)))
                .isInstanceOfSatisfying(
                        NoSuchKeyException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(404));
        assertThatThrownBy(
                        () -> s3.headObject(request -> request.bucket(bucket()).key(missing)))
                .isInstanceOfSatisfying(
                        NoSuchKeyException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(404));
    }

    @Test
    void nettyAsyncClientReadsARangeInOneCountedRequest() throws IOException {
        assumeTrue(plainHttp(), "the shaping proxy that counts requests forwards plain HTTP only");
        try (ProxiedS3 proxiedServer = ProxiedS3.inFrontOf(server(), NetworkModel.unshaped());
                S3AsyncClient async = S3Clients.nettyAsync(proxiedServer.proxied())) {
            ShapingProxy proxy = proxiedServer.proxy().orElseThrow();
            byte[] got = async.getObject(
                            request -> request.bucket(bucket()).key(objectKey).range("bytes=5-104"),
                            AsyncResponseTransformer.toBytes())
                    .join()
                    .asByteArray();

            assertThat(got).isEqualTo(slice(5, 105));
            assertThat(proxy.ledger().requests())
                    .singleElement()
                    .satisfies(request -> assertThat(request.method()).isEqualTo("GET"))
                    .satisfies(request -> assertThat(request.rangeHeader()).isEqualTo("bytes=5-104"))
                    .satisfies(request -> assertThat(request.bodyBytes()).isEqualTo(100));
        }
    }

    @Test
    void crtAsyncClientReadsARangeInOneRequestAndSeesPreconditionFailures() throws IOException {
        assumeTrue(plainHttp(), "the shaping proxy that counts requests forwards plain HTTP only");
        try (ProxiedS3 proxiedServer = ProxiedS3.inFrontOf(server(), NetworkModel.unshaped());
                S3AsyncClient crt = S3Clients.crtAsync(proxiedServer.proxied())) {
            ShapingProxy proxy = proxiedServer.proxy().orElseThrow();
            byte[] got = crt.getObject(
                            request -> request.bucket(bucket()).key(objectKey).range("bytes=5-104"),
                            AsyncResponseTransformer.toBytes())
                    .join()
                    .asByteArray();

            assertThat(got).isEqualTo(slice(5, 105));
            // the CRT sends its requests itself: only the wire shows it asked for exactly that range, once
            assertThat(proxy.ledger().requests())
                    .singleElement()
                    .satisfies(request -> assertThat(request.rangeHeader()).isEqualTo("bytes=5-104"));
            assertThatThrownBy(() -> crt.getObject(
                                    request -> request.bucket(bucket())
                                            .key(objectKey)
                                            .range("bytes=0-9")
                                            .ifMatch("\"0\""),
                                    AsyncResponseTransformer.toBytes())
                            .join())
                    .isInstanceOf(CompletionException.class)
                    .cause()
                    .isInstanceOfSatisfying(
                            S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
        }
    }

    private boolean plainHttp() {
        return "http".equalsIgnoreCase(server().endpoint().getScheme());
    }

    private ResponseBytes<GetObjectResponse> get(String range) {
        return s3.getObjectAsBytes(
                request -> request.bucket(bucket()).key(objectKey).range(range));
    }

    private String put(String key, byte[] bytes) {
        return s3.putObject(request -> request.bucket(bucket()).key(key), RequestBody.fromBytes(bytes))
                .eTag();
    }

    private byte[] slice(int from, int to) {
        return Arrays.copyOfRange(content, from, to);
    }

    private static String md5Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JVM has MD5", e);
        }
    }
}
