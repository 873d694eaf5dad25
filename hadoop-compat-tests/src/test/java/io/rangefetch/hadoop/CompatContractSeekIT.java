package io.rangefetch.hadoop;

import org.junit.ClassRule;

/** {@link RangefetchContractSeekSuite}, this Hadoop line's, through {@link RangefetchS3AFileSystem} on MinIO. */
@ProxiedS3A.ThroughFileSystem
public class CompatContractSeekIT extends RangefetchContractSeekSuite {
    @ClassRule
    public static final MinioClassRule MINIO = new MinioClassRule(CompatContractSeekIT.class);
}
