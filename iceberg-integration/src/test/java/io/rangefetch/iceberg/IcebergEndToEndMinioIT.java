package io.rangefetch.iceberg;

import io.rangefetch.it.server.MinioBinary;
import io.rangefetch.testing.server.S3Server;

/** The end-to-end suite on a real MinIO (the {@code minio} binary); skipped where there is none. */
class IcebergEndToEndMinioIT extends IcebergEndToEndSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return MinioBinary.startOrSkip();
    }
}
