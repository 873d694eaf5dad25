package io.rangefetch.it;

import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.S3Servers;

/** Runs only when RANGEFETCH_S3_ENDPOINT points at an S3 endpoint (credentials from the AWS variables). */
class StreamExternalIT extends StreamSuite {
    @Override
    protected S3Server startServer() {
        return S3Servers.external();
    }
}
