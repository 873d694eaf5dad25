package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link S3AStreamContractSuite} on the stream {@link RangefetchStreamFactory} opens for S3A on the run's MinIO. */
@ExtendWith(ProxiedS3A.OnMinio.class)
class S3AFactoryStreamContractMinioIT extends S3AStreamContractSuite {}
