package io.rangefetch.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's {@link AbstractContractSeekTest} on S3A with Rangefetch's streams. No test excluded. */
abstract class RangefetchContractSeekSuite extends AbstractContractSeekTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new S3AContract(conf, getClass());
    }
}
