package io.rangefetch.iceberg;

import io.rangefetch.it.EntryPoint;
import io.rangefetch.it.RetryFaultSuite;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import java.util.Map;

/** The fault suite through {@link RangefetchS3FileIO} on Iceberg's own client, on S3Proxy in this JVM. */
class IcebergRetryFaultS3ProxyIT extends RetryFaultSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3ProxyServer.start();
    }

    @Override
    protected EntryPoint entryPoint(Map<String, String> settings) {
        return IcebergEntryPoint.create(proxied(), settings);
    }
}
