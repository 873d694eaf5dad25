package io.rangefetch.hadoop;

import org.junit.ClassRule;

/** {@link RangefetchContractStreamIOStatisticsSuite}, this Hadoop line's, through {@link RangefetchS3AFileSystem} on MinIO. */
@ProxiedS3A.ThroughFileSystem
public class CompatContractStreamIOStatisticsIT extends RangefetchContractStreamIOStatisticsSuite {
    @ClassRule
    public static final MinioClassRule MINIO = new MinioClassRule(CompatContractStreamIOStatisticsIT.class);
}
