package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RangefetchContractVectoredReadSuite} on MinIO, through the shaping proxy. */
@ExtendWith(ProxiedS3A.OnMinio.class)
class RangefetchContractVectoredReadMinioIT extends RangefetchContractVectoredReadSuite {
    RangefetchContractVectoredReadMinioIT(String bufferType) {
        super(bufferType);
    }
}
