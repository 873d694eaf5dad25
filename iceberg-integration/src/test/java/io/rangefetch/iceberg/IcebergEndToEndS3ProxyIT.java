package io.rangefetch.iceberg;

import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;

/** The end-to-end suite on S3Proxy in this JVM. */
class IcebergEndToEndS3ProxyIT extends IcebergEndToEndSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3ProxyServer.start();
    }
}
