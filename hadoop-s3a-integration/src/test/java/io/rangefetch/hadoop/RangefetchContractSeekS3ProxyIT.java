package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RangefetchContractSeekSuite} on S3Proxy in this JVM, through the shaping proxy. */
@ExtendWith(ProxiedS3A.OnS3Proxy.class)
class RangefetchContractSeekS3ProxyIT extends RangefetchContractSeekSuite {}
