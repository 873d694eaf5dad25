package io.rangefetch.iceberg;

import io.rangefetch.it.EntryPoint;
import io.rangefetch.it.FaultSoakSuite;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import java.util.Map;

/** The fault soak through {@link RangefetchS3FileIO} on Iceberg's own client, on S3Proxy in this JVM. */
class IcebergFaultSoakS3ProxyIT extends FaultSoakSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3ProxyServer.start();
    }

    @Override
    protected EntryPoint entryPoint(Map<String, String> settings) {
        return IcebergEntryPoint.create(proxied(), settings);
    }
}
