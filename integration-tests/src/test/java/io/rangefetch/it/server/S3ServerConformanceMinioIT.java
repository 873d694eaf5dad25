package io.rangefetch.it.server;

import io.rangefetch.testing.server.S3Server;

class S3ServerConformanceMinioIT extends S3ServerConformanceSuite {

    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.minio();
    }
}
