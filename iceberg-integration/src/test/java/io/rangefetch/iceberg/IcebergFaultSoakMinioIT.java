package io.rangefetch.iceberg;

import io.rangefetch.it.EntryPoint;
import io.rangefetch.it.FaultSoakSuite;
import io.rangefetch.it.server.MinioBinary;
import io.rangefetch.testing.server.S3Server;
import java.util.Map;

/**
 * The fault soak through {@link RangefetchS3FileIO} on Iceberg's own client, on a real MinIO (the {@code minio}
 * binary); skipped where there is none.
 */
class IcebergFaultSoakMinioIT extends FaultSoakSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return MinioBinary.startOrSkip();
    }

    @Override
    protected EntryPoint entryPoint(Map<String, String> settings) {
        return IcebergEntryPoint.create(proxied(), settings);
    }
}
