package io.rangefetch.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hadoop's {@link AbstractContractVectoredReadTest} on S3A with Rangefetch's streams, on MinIO, with heap and
 * direct buffers (the suite's parameter). No test excluded.
 */
@ExtendWith(MinioS3A.Extension.class)
class RangefetchContractVectoredReadIT extends AbstractContractVectoredReadTest {
    RangefetchContractVectoredReadIT(String bufferType) {
        super(bufferType);
    }

    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new S3AContract(conf, MinioS3A.shared());
    }
}
