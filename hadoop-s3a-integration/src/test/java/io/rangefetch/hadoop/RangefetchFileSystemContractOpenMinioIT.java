package io.rangefetch.hadoop;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RangefetchContractOpenSuite} on MinIO through {@link RangefetchS3AFileSystem} ({@code fs.s3a.impl}). */
@ExtendWith(ProxiedS3A.OnMinio.class)
@ProxiedS3A.ThroughFileSystem
class RangefetchFileSystemContractOpenMinioIT extends RangefetchContractOpenSuite {}
