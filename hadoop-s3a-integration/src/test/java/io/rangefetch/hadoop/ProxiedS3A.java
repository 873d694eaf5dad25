package io.rangefetch.hadoop;

import static java.util.Objects.requireNonNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.testing.ProxiedS3;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ShapingProxy;
import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One S3 server (MinIO or S3Proxy) behind an unshaped {@link ShapingProxy} (a {@link ProxiedS3}), and the S3A
 * configuration that reaches it through the proxy. Each backend is started once a test run, shared by every IT class on it and
 * stopped when the run ends (it lives in JUnit's root store, which closes the proxy, then the server).
 *
 * <p>A test class picks its backend with {@link OnMinio} or {@link OnS3Proxy} and finds the instance with
 * {@link #of(Class)}: the suites are written once and subclassed per backend with nothing but that annotation.
 * MinIO skips the calling class where there is no {@code minio} binary; S3Proxy runs in this JVM on 127.0.0.1.
 */
final class ProxiedS3A implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    static final String BUCKET = "rangefetch-hadoop-it";

    /** The instance each test class's backend extension found or started, by test class. */
    private static final Map<Class<?>, ProxiedS3A> BY_TEST_CLASS = new ConcurrentHashMap<>();

    private final ProxiedS3 s3;
    // s3's server and proxy
    private final S3Server server;
    private final ShapingProxy proxy;

    private ProxiedS3A(ProxiedS3 s3) {
        this.s3 = s3;
        this.server = s3.server();
        // both servers here listen on plain HTTP, so there is always a proxy
        this.proxy = s3.proxy().orElseThrow();
    }

    /** Runs the annotated test class on the run's MinIO: {@code @ExtendWith(ProxiedS3A.OnMinio.class)}. */
    static final class OnMinio extends Backend {
        @Override
        S3Server startServer() throws Exception {
            assumeTrue(
                    MinioServer.binaryAvailable(),
                    "no minio binary ($MINIO_BINARY, PATH or $(go env GOPATH)/bin/minio): build one with .ci/run");
            return MinioServer.start();
        }
    }

    /** Runs the annotated test class on the run's S3Proxy: {@code @ExtendWith(ProxiedS3A.OnS3Proxy.class)}. */
    static final class OnS3Proxy extends Backend {
        @Override
        S3Server startServer() throws Exception {
            return S3ProxyServer.start();
        }
    }

    /** Starts (once a run, per backend) the shared instance before a test class and records it for the class. */
    abstract static sealed class Backend implements BeforeAllCallback permits OnMinio, OnS3Proxy {
        abstract S3Server startServer() throws Exception;

        @Override
        public void beforeAll(ExtensionContext context) {
            ProxiedS3A started = context.getRoot()
                    .getStore(ExtensionContext.Namespace.GLOBAL)
                    .getOrComputeIfAbsent(getClass(), backend -> start(), ProxiedS3A.class);
            BY_TEST_CLASS.put(context.getRequiredTestClass(), started);
        }

        private ProxiedS3A start() {
            return ProxiedS3A.start(this::startServer, getClass().getSimpleName());
        }
    }

    /** What a backend's {@link Backend#startServer} does, as a value. */
    @FunctionalInterface
    private interface ServerStart {
        S3Server start() throws Exception;
    }

    /** The server {@code server} starts, behind its proxy, with the test bucket. */
    private static ProxiedS3A start(ServerStart server, String name) {
        ProxiedS3 s3;
        try {
            s3 = ProxiedS3.start(server::start, NetworkModel.unshaped());
        } catch (RuntimeException e) {
            throw e; // a skip (no minio binary) stays a skip
        } catch (Exception e) {
            throw new IllegalStateException(name + ": the S3 server or the proxy in front of it did not start", e);
        }
        try {
            s3.server().createBucket(BUCKET);
            return new ProxiedS3A(s3);
        } catch (RuntimeException | Error e) {
            s3.close();
            throw e;
        }
    }

    /**
     * MinIO for {@code testClass} alone, registered as its backend, for a class JUnit 4 runs (the contract suites
     * of Hadoop 3.3 and 3.4), which no Jupiter extension reaches; the caller closes it after the class.
     */
    static ProxiedS3A startOnMinioFor(Class<?> testClass) {
        ProxiedS3A started = start(MinioServer::start, testClass.getSimpleName());
        BY_TEST_CLASS.put(testClass, started);
        return started;
    }

    /** The run's instance for {@code testClass}, which one of the backend extensions annotates. */
    static ProxiedS3A of(Class<?> testClass) {
        ProxiedS3A started = BY_TEST_CLASS.get(requireNonNull(testClass, "testClass is null"));
        if (started == null) {
            throw new IllegalStateException(testClass.getName()
                    + ": annotate the test class with @ExtendWith(ProxiedS3A.OnMinio.class) or OnS3Proxy.class");
        }
        return started;
    }

    ShapingProxy proxy() {
        return proxy;
    }

    S3Server server() {
        return server;
    }

    /**
     * S3A on this server through the proxy, with S3A's own stream type (none chosen): the README's settings are
     * added by the tests that use them.
     */
    Configuration s3aConfiguration() {
        return s3aConfiguration(s3.proxied());
    }

    /** S3A on {@code server} (reached at its endpoint, a proxy's or its own), with S3A's own stream type. */
    static Configuration s3aConfiguration(S3Server server) {
        Configuration conf = new Configuration();
        conf.set("fs.s3a.endpoint", server.endpoint().toString());
        conf.set("fs.s3a.endpoint.region", server.region());
        conf.setBoolean("fs.s3a.path.style.access", true);
        conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
        conf.setInt("fs.s3a.bucket.probe", 0);
        conf.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        conf.set("fs.s3a.access.key", server.accessKey());
        conf.set("fs.s3a.secret.key", server.secretKey());
        // every test opens its own instance and closes it
        conf.setBoolean("fs.s3a.impl.disable.cache", true);
        return conf;
    }

    /** The README's two settings that switch every s3a:// read to Rangefetch. */
    static Configuration withRangefetch(Configuration conf) {
        conf.set("fs.s3a.input.stream.type", "custom");
        conf.set("fs.s3a.input.stream.custom.factory", "io.rangefetch.hadoop.RangefetchStreamFactory");
        return conf;
    }

    /** The README's one setting for Hadoop lines without the stream factory: S3A with Rangefetch's streams. */
    static Configuration withRangefetchFileSystem(Configuration conf) {
        conf.set("fs.s3a.impl", RangefetchS3AFileSystem.class.getName());
        return conf;
    }

    /**
     * Marks a test class whose S3A reads go through {@link RangefetchS3AFileSystem} instead of the stream factory
     * (see {@link #withRangefetchFor}).
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface ThroughFileSystem {}

    /** Rangefetch's settings for {@code testClass}: the file system's with {@link ThroughFileSystem}, else the factory's. */
    static Configuration withRangefetchFor(Class<?> testClass, Configuration conf) {
        return testClass.isAnnotationPresent(ThroughFileSystem.class)
                ? withRangefetchFileSystem(conf)
                : withRangefetch(conf);
    }

    @Override
    public void close() {
        BY_TEST_CLASS.values().removeIf(registered -> registered == this);
        s3.close();
    }

    @Override
    public String toString() {
        return s3.toString();
    }
}
