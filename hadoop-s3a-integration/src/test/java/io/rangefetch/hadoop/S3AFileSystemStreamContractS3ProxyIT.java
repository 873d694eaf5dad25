package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link S3AStreamContractSuite} on the stream {@code RangefetchS3AFileSystem} opens, on in-JVM S3Proxy. */
@ExtendWith(ProxiedS3A.OnS3Proxy.class)
@ProxiedS3A.ThroughFileSystem
class S3AFileSystemStreamContractS3ProxyIT extends S3AStreamContractSuite {}
