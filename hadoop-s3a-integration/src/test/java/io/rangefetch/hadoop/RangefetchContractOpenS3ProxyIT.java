package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RangefetchContractOpenSuite} on S3Proxy in this JVM, through the shaping proxy. */
@ExtendWith(ProxiedS3A.OnS3Proxy.class)
class RangefetchContractOpenS3ProxyIT extends RangefetchContractOpenSuite {}
