package io.rangefetch.hadoop;

import io.rangefetch.StreamFactory;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * {@link S3AIdentitySuite} through {@link RangefetchS3AFileSystem} ({@code fs.s3a.impl}), on the TLS MinIO of two
 * principals: the main build's Hadoop, and 3.4.1, 3.3.6 and 3.3.4 through rangefetch-hadoop-compat-tests (on 3.3.x
 * the GETs go through the SDK v2 client the file system builds from S3A's settings, SSE-C key included). The file
 * system does not show its factory: the suite tells factories apart by the registry's count and by what is read.
 */
class RangefetchS3AFileSystemIdentityMinioIT extends S3AIdentitySuite {
    @Override
    Configuration throughEntryPoint(Configuration conf) {
        return ProxiedS3A.withRangefetchFileSystem(conf);
    }

    @Override
    Optional<StreamFactory> rangefetchOf(FileSystem fs) {
        return Optional.empty();
    }
}
