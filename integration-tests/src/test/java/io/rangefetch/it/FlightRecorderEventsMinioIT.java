package io.rangefetch.it;

import io.rangefetch.it.server.S3Servers;
import io.rangefetch.testing.server.S3Server;

class FlightRecorderEventsMinioIT extends FlightRecorderEventsSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return S3Servers.minio();
    }
}
