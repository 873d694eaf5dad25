package io.rangefetch.it;

import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.S3Servers;

class TextSplitMinioIT extends TextSplitSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.minio();
    }
}
