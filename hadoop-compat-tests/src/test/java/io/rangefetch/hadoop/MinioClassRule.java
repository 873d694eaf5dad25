package io.rangefetch.hadoop;

import io.rangefetch.testing.server.MinioServer;
import org.junit.Assume;
import org.junit.rules.ExternalResource;

/**
 * What {@code @ExtendWith(ProxiedS3A.OnMinio.class)} is to a Jupiter class, for a JUnit 4 one (the contract suites
 * of Hadoop 3.3 and 3.4 are JUnit 4 tests): a {@code @ClassRule} that starts MinIO behind its proxy for the class,
 * registers it as the class's backend ({@link ProxiedS3A#of}), and stops it after the class. Skips the class where
 * there is no {@code minio} binary.
 */
public final class MinioClassRule extends ExternalResource {
    private final Class<?> testClass;
    private ProxiedS3A started;

    public MinioClassRule(Class<?> testClass) {
        this.testClass = testClass;
    }

    @Override
    protected void before() {
        Assume.assumeTrue(
                "no minio binary ($MINIO_BINARY, PATH or $(go env GOPATH)/bin/minio): build one with .ci/run",
                MinioServer.binaryAvailable());
        started = ProxiedS3A.startOnMinioFor(testClass);
    }

    @Override
    protected void after() {
        if (started != null) {
            started.close();
        }
    }
}
