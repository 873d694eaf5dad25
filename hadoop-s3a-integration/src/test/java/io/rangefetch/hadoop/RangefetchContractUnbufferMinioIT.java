package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RangefetchContractUnbufferSuite} on MinIO, through the shaping proxy. */
@ExtendWith(ProxiedS3A.OnMinio.class)
class RangefetchContractUnbufferMinioIT extends RangefetchContractUnbufferSuite {}
