package io.rangefetch.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractUnbufferTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's {@link AbstractContractUnbufferTest} on S3A with Rangefetch's streams. No test excluded. */
abstract class RangefetchContractUnbufferSuite extends AbstractContractUnbufferTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new S3AContract(conf, getClass());
    }
}
