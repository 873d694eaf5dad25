package io.rangefetch.it.server;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3Server;

/**
 * A real MinIO from the {@code minio} binary, or the calling test class skipped: for the modules that run the
 * suites without a container fallback (and without Testcontainers on their class path).
 */
public final class MinioBinary {
    private MinioBinary() {}

    /** Starts MinIO; aborts the caller where there is no binary. */
    public static S3Server startOrSkip() throws Exception {
        assumeTrue(
                MinioServer.binaryAvailable(),
                "no minio binary ($MINIO_BINARY, PATH or $(go env GOPATH)/bin/minio): build one with .ci/run");
        return MinioServer.start();
    }
}
