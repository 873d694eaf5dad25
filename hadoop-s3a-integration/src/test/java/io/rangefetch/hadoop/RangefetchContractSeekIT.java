package io.rangefetch.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.junit.jupiter.api.extension.ExtendWith;

/** Hadoop's {@link AbstractContractSeekTest} on S3A with Rangefetch's streams, on MinIO. No test excluded. */
@ExtendWith(MinioS3A.Extension.class)
class RangefetchContractSeekIT extends AbstractContractSeekTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new S3AContract(conf, MinioS3A.shared());
    }
}
