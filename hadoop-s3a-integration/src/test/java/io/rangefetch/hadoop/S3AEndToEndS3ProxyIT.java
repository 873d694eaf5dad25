package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link S3AEndToEndSuite} on S3Proxy in this JVM, through the shaping proxy. */
@ExtendWith(ProxiedS3A.OnS3Proxy.class)
class S3AEndToEndS3ProxyIT extends S3AEndToEndSuite {}
