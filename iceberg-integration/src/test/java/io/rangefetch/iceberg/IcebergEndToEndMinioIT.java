package io.rangefetch.iceberg;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.it.server.MinioServer;
import io.rangefetch.it.server.S3Server;

/** The end-to-end suite on a real MinIO (the {@code minio} binary); skipped where there is none. */
class IcebergEndToEndMinioIT extends IcebergEndToEndSuite {
    @Override
    protected S3Server startServer() throws Exception {
        assumeTrue(MinioServer.binaryAvailable(),
                "no minio binary ($MINIO_BINARY, PATH or $(go env GOPATH)/bin/minio): build one with .ci/run");
        return MinioServer.start();
    }
}
