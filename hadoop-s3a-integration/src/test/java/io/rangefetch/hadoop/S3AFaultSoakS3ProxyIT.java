package io.rangefetch.hadoop;

import io.rangefetch.it.EntryPoint;
import io.rangefetch.it.FaultSoakSuite;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import java.util.Map;

/**
 * The fault soak through S3A with {@link RangefetchStreamFactory} on S3A's own client and retry settings, on
 * S3Proxy in this JVM.
 */
class S3AFaultSoakS3ProxyIT extends FaultSoakSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3ProxyServer.start();
    }

    @Override
    protected EntryPoint entryPoint(Map<String, String> settings) throws Exception {
        return S3AEntryPoint.create(proxied(), bucket(), settings);
    }
}
