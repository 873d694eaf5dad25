package io.rangefetch.it.server;

import io.rangefetch.testing.server.S3Server;

class S3ServerConformanceS3ProxyIT extends S3ServerConformanceSuite {

    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.s3proxy();
    }
}
