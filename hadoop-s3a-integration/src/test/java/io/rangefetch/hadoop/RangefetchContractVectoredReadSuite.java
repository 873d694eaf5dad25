package io.rangefetch.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's {@link AbstractContractVectoredReadTest} on S3A with Rangefetch's streams, with heap and
 * direct buffers (the suite's parameter). No test excluded.
 */
abstract class RangefetchContractVectoredReadSuite extends AbstractContractVectoredReadTest {
    RangefetchContractVectoredReadSuite(String bufferType) {
        super(bufferType);
    }

    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new S3AContract(conf, getClass());
    }
}
