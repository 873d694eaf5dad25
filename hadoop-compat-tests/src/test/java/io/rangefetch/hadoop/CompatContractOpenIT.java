package io.rangefetch.hadoop;

import org.junit.ClassRule;

/** {@link RangefetchContractOpenSuite}, this Hadoop line's, through {@link RangefetchS3AFileSystem} on MinIO. */
@ProxiedS3A.ThroughFileSystem
public class CompatContractOpenIT extends RangefetchContractOpenSuite {
    @ClassRule
    public static final MinioClassRule MINIO = new MinioClassRule(CompatContractOpenIT.class);
}
