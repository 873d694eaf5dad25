package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link S3AEndToEndSuite} on MinIO, through the shaping proxy. */
@ExtendWith(ProxiedS3A.OnMinio.class)
class S3AEndToEndMinioIT extends S3AEndToEndSuite {}
