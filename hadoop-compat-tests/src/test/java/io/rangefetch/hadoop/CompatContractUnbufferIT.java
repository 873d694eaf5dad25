package io.rangefetch.hadoop;

import org.junit.ClassRule;

/** {@link RangefetchContractUnbufferSuite}, this Hadoop line's, through {@link RangefetchS3AFileSystem} on MinIO. */
@ProxiedS3A.ThroughFileSystem
public class CompatContractUnbufferIT extends RangefetchContractUnbufferSuite {
    @ClassRule
    public static final MinioClassRule MINIO = new MinioClassRule(CompatContractUnbufferIT.class);
}
