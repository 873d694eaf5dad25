package io.rangefetch.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractOpenTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's {@link AbstractContractOpenTest} on S3A with Rangefetch's streams. Every test runs: S3A reports
 * {@code isEncrypted() == true} for every object, zero-byte ones included (S3 encrypts all data at rest), which
 * the suite asks a store to declare ({@code testFsIsEncrypted}).
 */
abstract class RangefetchContractOpenSuite extends AbstractContractOpenTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new S3AContract(conf, getClass());
    }

    @Override
    protected boolean areZeroByteFilesEncrypted() {
        return true;
    }
}
