package io.rangefetch.hadoop;

import io.rangefetch.it.EntryPoint;
import io.rangefetch.it.FaultSoakSuite;
import io.rangefetch.it.server.MinioBinary;
import io.rangefetch.testing.server.S3Server;
import java.util.Map;

/**
 * The fault soak through S3A with {@link RangefetchStreamFactory} on S3A's own client and retry settings, on a
 * real MinIO (the {@code minio} binary); skipped where there is none.
 */
class S3AFaultSoakMinioIT extends FaultSoakSuite {
    @Override
    protected S3Server startServer() throws Exception {
        return MinioBinary.startOrSkip();
    }

    @Override
    protected EntryPoint entryPoint(Map<String, String> settings) throws Exception {
        return S3AEntryPoint.create(proxied(), bucket(), settings);
    }
}
