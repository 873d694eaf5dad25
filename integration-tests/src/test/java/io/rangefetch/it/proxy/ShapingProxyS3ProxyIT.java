package io.rangefetch.testing.proxy;

import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.S3Servers;

class ShapingProxyS3ProxyIT extends ShapingProxySuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.s3proxy();
    }
}
