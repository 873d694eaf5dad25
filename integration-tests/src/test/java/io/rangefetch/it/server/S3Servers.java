package io.rangefetch.it.server;

import io.rangefetch.testing.server.ExternalS3Endpoint;
import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import org.junit.jupiter.api.Assumptions;

/**
 * Picks and starts the server for each backend a suite is subclassed for. A backend this machine cannot
 * run aborts the calling test class (reported as skipped, with the reason) rather than failing it.
 */
public final class S3Servers {

    private S3Servers() {}

    /**
     * A real MinIO: the {@code minio} binary if one is found ({@link MinioServer}), else a container if a
     * Docker engine answers ({@link TestcontainersMinioServer}), else the caller is aborted.
     */
    public static S3Server minio() throws Exception {
        if (MinioServer.binaryAvailable()) {
            return MinioServer.start();
        }
        if (TestcontainersMinioServer.dockerAvailable()) {
            return TestcontainersMinioServer.start();
        }
        return Assumptions.abort(
                "no MinIO to test against: no minio binary ($MINIO_BINARY, PATH or $(go env GOPATH)/bin/minio)"
                        + " and no Docker engine; build one with .ci/run or `GOFLAGS=-mod=mod go install"
                        + " github.com/minio/minio@<version>`");
    }

    /** S3Proxy in this JVM; runs everywhere. */
    public static S3Server s3proxy() throws Exception {
        return S3ProxyServer.start();
    }

    /** The endpoint {@code RANGEFETCH_S3_ENDPOINT} names; the caller is aborted when it is unset. */
    public static S3Server external() {
        Assumptions.assumeTrue(
                ExternalS3Endpoint.configured(),
                ExternalS3Endpoint.ENDPOINT_VARIABLE + " is not set: no external S3 endpoint to test against");
        return ExternalS3Endpoint.fromEnvironment();
    }
}
