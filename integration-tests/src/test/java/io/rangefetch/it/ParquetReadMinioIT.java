package io.rangefetch.it;

import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.S3Servers;

class ParquetReadMinioIT extends ParquetReadSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.minio();
    }
}
