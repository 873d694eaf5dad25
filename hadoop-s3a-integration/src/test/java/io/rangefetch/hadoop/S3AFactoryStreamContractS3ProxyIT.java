package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link S3AStreamContractSuite} on the stream {@link RangefetchStreamFactory} opens for S3A on in-JVM S3Proxy. */
@ExtendWith(ProxiedS3A.OnS3Proxy.class)
class S3AFactoryStreamContractS3ProxyIT extends S3AStreamContractSuite {}
