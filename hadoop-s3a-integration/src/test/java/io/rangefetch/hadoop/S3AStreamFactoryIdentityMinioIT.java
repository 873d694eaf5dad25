package io.rangefetch.hadoop;

import io.rangefetch.StreamFactory;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.service.CompositeService;

/**
 * {@link S3AIdentitySuite} through S3A's stream factory seam ({@link RangefetchStreamFactory}, Hadoop 3.4.2 and later),
 * on the TLS MinIO of two principals: the main build's Hadoop and the hadoop-3.4.2 profile. The factory of a file
 * system is found as S3A made it, a service of its store.
 */
class S3AStreamFactoryIdentityMinioIT extends S3AIdentitySuite {
    @Override
    Configuration throughEntryPoint(Configuration conf) {
        return ProxiedS3A.withRangefetch(conf);
    }

    @Override
    Optional<StreamFactory> rangefetchOf(FileSystem fs) {
        if (!(((S3AFileSystem) fs).getS3AInternals().getStore() instanceof CompositeService store)) {
            throw new IllegalStateException("S3A's store is no composite service: cannot find its stream factory");
        }
        return Optional.of(store.getServices().stream()
                .filter(RangefetchStreamFactory.class::isInstance)
                .map(service -> ((RangefetchStreamFactory) service).rangefetch())
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException("no RangefetchStreamFactory among " + store.getServices())));
    }
}
