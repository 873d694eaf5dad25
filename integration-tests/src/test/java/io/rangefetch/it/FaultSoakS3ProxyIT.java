package io.rangefetch.it;

import io.rangefetch.it.server.S3Servers;
import io.rangefetch.testing.server.S3Server;
import java.util.Map;

class FaultSoakS3ProxyIT extends FaultSoakSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.s3proxy();
    }

    @Override
    protected EntryPoint entryPoint(Map<String, String> settings) {
        return FactoryEntryPoint.create(proxied(), settings);
    }
}
