package io.rangefetch.testing.server;

class S3ServerConformanceExternalIT extends S3ServerConformanceSuite {

    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.external();
    }
}
