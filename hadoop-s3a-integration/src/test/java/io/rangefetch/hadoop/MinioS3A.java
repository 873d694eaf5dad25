package io.rangefetch.hadoop;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.it.proxy.NetworkModel;
import io.rangefetch.it.proxy.ShapingProxy;
import io.rangefetch.it.server.MinioServer;
import io.rangefetch.it.server.S3Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One MinIO (the {@code minio} binary) behind an unshaped {@link ShapingProxy}, shared by every IT of a test run
 * and stopped when the run ends (it lives in JUnit's root store), and the S3A configuration that reaches it.
 * Skips the calling test where there is no MinIO binary.
 */
final class MinioS3A implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    static final String BUCKET = "rangefetch-hadoop-it";

    private final S3Server server;
    private final ShapingProxy proxy;

    private MinioS3A(S3Server server, ShapingProxy proxy) {
        this.server = server;
        this.proxy = proxy;
    }

    private static volatile MinioS3A shared;

    /** Starts (once a run) the shared instance before a test class: {@code @ExtendWith(MinioS3A.Extension.class)}. */
    static final class Extension implements BeforeAllCallback {
        @Override
        public void beforeAll(ExtensionContext context) {
            shared = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                    .getOrComputeIfAbsent(MinioS3A.class, type -> start(), MinioS3A.class);
        }
    }

    /** The run's instance, for a class extended with {@link Extension}. */
    static MinioS3A shared() {
        MinioS3A started = shared;
        if (started == null) {
            throw new IllegalStateException("annotate the test class with @ExtendWith(MinioS3A.Extension.class)");
        }
        return started;
    }

    private static MinioS3A start() {
        assumeTrue(MinioServer.binaryAvailable(),
                "no minio binary ($MINIO_BINARY, PATH or $(go env GOPATH)/bin/minio): build one with .ci/run");
        try {
            MinioServer server = MinioServer.start();
            try {
                server.createBucket(BUCKET);
                return new MinioS3A(server, ShapingProxy.start(server.endpoint(), NetworkModel.unshaped()));
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("MinIO did not start", e);
        }
    }

    ShapingProxy proxy() {
        return proxy;
    }

    S3Server server() {
        return server;
    }

    /**
     * S3A on this MinIO through the proxy, with S3A's own stream type (none chosen): the README's settings are
     * added by the tests that use them.
     */
    Configuration s3aConfiguration() {
        Configuration conf = new Configuration();
        conf.set("fs.s3a.endpoint", proxy.endpoint().toString());
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

    @Override
    public void close() {
        try {
            proxy.close();
        } finally {
            server.close();
        }
    }
}
