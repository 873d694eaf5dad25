package io.rangefetch.it.proxy;

import io.rangefetch.it.server.S3Server;
import io.rangefetch.it.server.S3Servers;

class ShapingProxyMinioIT extends ShapingProxySuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.minio();
    }
}
