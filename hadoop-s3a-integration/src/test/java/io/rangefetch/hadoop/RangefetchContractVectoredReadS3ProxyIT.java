package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RangefetchContractVectoredReadSuite} on S3Proxy in this JVM, through the shaping proxy. */
@ExtendWith(ProxiedS3A.OnS3Proxy.class)
class RangefetchContractVectoredReadS3ProxyIT extends RangefetchContractVectoredReadSuite {
    RangefetchContractVectoredReadS3ProxyIT(String bufferType) {
        super(bufferType);
    }
}
