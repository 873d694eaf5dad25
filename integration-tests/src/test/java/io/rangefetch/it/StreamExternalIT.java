package io.rangefetch.it;

import io.rangefetch.it.server.S3Servers;
import io.rangefetch.testing.server.S3Server;

/** Runs only when RANGEFETCH_S3_ENDPOINT points at an S3 endpoint (credentials from the AWS variables). */
class StreamExternalIT extends StreamSuite {
    @Override
    protected S3Server startServer() {
        return S3Servers.external();
    }
}
