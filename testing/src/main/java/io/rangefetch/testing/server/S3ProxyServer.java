package io.rangefetch.testing.server;

import java.net.URI;
import java.time.Duration;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;

/**
 * S3Proxy running inside this JVM on 127.0.0.1, storing objects in memory. It needs nothing installed,
 * so it is the backend every machine can run.
 *
 * <p>The store is S3Proxy's {@code transient} one (an in-memory Jimfs file system). Both it and the
 * {@code filesystem} store (a directory on disk) pass {@code S3ServerConformanceSuite} on an ext4 temp
 * directory, but the latter keeps each ETag in a user extended attribute of the host file system:
 * where those are unsupported it serves no ETag and skips If-Match altogether, which would make the
 * ETag-pinning tests pass or fail by machine. The in-memory store always has them. Its objects count
 * against this JVM's heap (suites keep them small) and are garbage once the server is closed.
 *
 * <p>Jetty binds port 0, so there is no window in which another process could take the port. {@link
 * #close()} stops Jetty and with it every {@code S3Proxy-Jetty} thread.
 */
public final class S3ProxyServer implements S3Server {

    public static final String ACCESS_KEY = "s3proxy-access";
    public static final String SECRET_KEY = "s3proxy-secret";

    /** Thread-name prefix of the server's Jetty pool, for {@link ThreadLeakChecker}. */
    public static final String THREAD_NAME_PREFIX = "S3Proxy-Jetty";

    // Requests still running at close belong to a test that is already over: do not wait for them long.
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(2);

    private final S3Proxy proxy;
    private final BlobStore store;
    private final URI endpoint;

    private S3ProxyServer(S3Proxy proxy, BlobStore store) {
        this.proxy = proxy;
        this.store = store;
        this.endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    /** Starts S3Proxy and returns once it listens. */
    public static S3ProxyServer start() throws Exception {
        BlobStore store = new TransientNio2BlobStore();
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(store)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .stopTimeout(STOP_TIMEOUT.toMillis())
                .build();
        try {
            proxy.start(); // returns once Jetty is bound and accepting
        } catch (Exception e) {
            stopQuietly(proxy, e);
            store.close();
            throw e;
        }
        return new S3ProxyServer(proxy, store);
    }

    @Override
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public String accessKey() {
        return ACCESS_KEY;
    }

    @Override
    public String secretKey() {
        return SECRET_KEY;
    }

    @Override
    public String name() {
        return "s3proxy";
    }

    /**
     * No: under overwrites the in-memory store now and then answers a GET with one version's ETag and another's
     * bytes (its metadata and its content are read apart). Measured here: 4 of 1,535 whole-object GETs racing a
     * loop of PUTs of a 1 MiB object carried an ETag that was not their bytes' MD5.
     */
    @Override
    public boolean overwritesAtomically() {
        return false;
    }

    /** Stops Jetty and waits for its threads; the in-memory objects become garbage. */
    @Override
    public void close() {
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("could not stop S3Proxy at " + endpoint, e);
        } finally {
            store.close();
        }
    }

    @Override
    public String toString() {
        return "s3proxy at " + endpoint;
    }

    private static void stopQuietly(S3Proxy proxy, Exception cause) {
        try {
            proxy.stop();
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }
}
