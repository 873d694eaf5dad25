package io.rangefetch.hadoop;

import org.junit.ClassRule;

/**
 * {@link RangefetchContractVectoredReadSuite}, this Hadoop line's, through {@link RangefetchS3AFileSystem} on MinIO,
 * with heap and direct buffers (the suite's parameter).
 */
@ProxiedS3A.ThroughFileSystem
public class CompatContractVectoredReadIT extends RangefetchContractVectoredReadSuite {
    @ClassRule
    public static final MinioClassRule MINIO = new MinioClassRule(CompatContractVectoredReadIT.class);

    public CompatContractVectoredReadIT(String bufferType) {
        super(bufferType);
    }
}
