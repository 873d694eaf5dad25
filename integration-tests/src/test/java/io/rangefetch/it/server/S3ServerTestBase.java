package io.rangefetch.it.server;

import static java.util.Objects.requireNonNull;

import io.rangefetch.testing.server.S3Server;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Base of every suite that runs against a real S3 server. A suite is written once, as an abstract
 * subclass, and made concrete once per backend by naming the server:
 *
 * <pre>{@code
 * abstract class FooSuite extends S3ServerTestBase { ... tests using server(), bucket(), key() ... }
 *
 * class FooMinioIT extends FooSuite {
 *   protected S3Server startServer() throws Exception { return S3Servers.minio(); }
 * }
 * class FooS3ProxyIT extends FooSuite {
 *   protected S3Server startServer() throws Exception { return S3Servers.s3proxy(); }
 * }
 * }</pre>
 *
 * One server serves every test of the class: it is started before the first test and closed after the
 * last one (subclasses' own {@code @AfterAll} methods run before that, so they can still use it). Keys
 * written through {@link #key(String)} are unique to this class instance, so suites never see each
 * other's objects, even in a shared external bucket.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class S3ServerTestBase {

    private static final Logger LOG = LoggerFactory.getLogger(S3ServerTestBase.class);

    private final String keyPrefix = "rangefetch-it/"
            + getClass().getSimpleName()
            + "-"
            + UUID.randomUUID().toString().substring(0, 8)
            + "/";

    private S3Server server;
    private String bucket;

    /** Starts (or connects to) the server this class runs against; aborting here skips the class. */
    protected abstract S3Server startServer() throws Exception;

    /** Name of the bucket to create on servers we own; override to separate suites' buckets. */
    protected String bucketName() {
        return "rangefetch-it";
    }

    @BeforeAll
    final void startS3Server() throws Exception {
        try {
            server = startServer();
        } catch (TestAbortedException e) {
            // Surefire reports a class aborted here as "Tests run: 0" and drops the reason: say it ourselves.
            LOG.warn("{} skipped: {}", getClass().getSimpleName(), e.getMessage());
            throw e;
        }
        bucket = server.testBucket(bucketName());
    }

    @AfterAll
    final void closeS3Server() {
        if (server != null) {
            server.close();
        }
    }

    protected final S3Server server() {
        return requireNonNull(server, "server is not started");
    }

    /** The bucket this class writes to; exists once the class has started. */
    protected final String bucket() {
        return requireNonNull(bucket, "server is not started");
    }

    /** A key under this class instance's own prefix. */
    protected final String key(String name) {
        return keyPrefix + name;
    }

    /** Writes {@code data} to {@link #key(String) key(name)} in this class's bucket; returns its ETag. */
    protected final String put(S3Client s3, String name, byte[] data) {
        return s3.putObject(request -> request.bucket(bucket()).key(key(name)), RequestBody.fromBytes(data))
                .eTag();
    }

    /** {@code length} pseudo-random bytes, the same for the same seed: content no range arithmetic can fake. */
    protected static byte[] randomBytes(int length, long seed) {
        byte[] data = new byte[length];
        new SplittableRandom(seed).nextBytes(data);
        return data;
    }
}
