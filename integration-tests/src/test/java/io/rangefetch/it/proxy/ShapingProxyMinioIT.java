package io.rangefetch.it.proxy;

import io.rangefetch.it.server.S3Servers;
import io.rangefetch.testing.server.S3Server;

class ShapingProxyMinioIT extends ShapingProxySuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.minio();
    }
}
