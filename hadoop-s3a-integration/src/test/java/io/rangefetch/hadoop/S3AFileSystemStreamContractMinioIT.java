package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link S3AStreamContractSuite} on the stream {@code RangefetchS3AFileSystem} opens, on the run's MinIO. */
@ExtendWith(ProxiedS3A.OnMinio.class)
@ProxiedS3A.ThroughFileSystem
class S3AFileSystemStreamContractMinioIT extends S3AStreamContractSuite {}
