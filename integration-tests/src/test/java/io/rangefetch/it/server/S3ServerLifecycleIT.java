package io.rangefetch.it.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3ProxyServer;
import io.rangefetch.testing.server.S3Server;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/** The harness cleans up after itself: servers leave no process, thread or file behind once closed. */
class S3ServerLifecycleIT {

    private static final Duration GRACE = Duration.ofSeconds(5);

    @Test
    void closedMinioLeavesNoProcessAndNoFiles() throws Exception {
        assumeTrue(MinioServer.binaryAvailable(), "no minio binary");
        MinioServer minio = MinioServer.start();
        Path workDirectory = minio.workDirectory();
        try {
            exercise(minio);
            assertThat(minio.isRunning()).isTrue();
        } finally {
            minio.close();
        }

        assertThat(minio.isRunning()).as("minio process alive after close").isFalse();
        assertThat(Files.exists(workDirectory))
                .as(workDirectory + " exists after close")
                .isFalse();
    }

    @Test
    void minioOnAKeptDataDirectoryFindsItsObjectsAgainAndLeavesThemBehind(@TempDir Path kept) throws Exception {
        assumeTrue(MinioServer.binaryAvailable(), "no minio binary");
        Path data = kept.resolve("data");
        try (MinioServer first = MinioServer.start(data)) {
            exercise(first);
        }

        assertThat(data).isNotEmptyDirectory();
        try (MinioServer second = MinioServer.start(data);
                S3Client s3 = S3Clients.sync(second)) {
            assertThat(s3.getObjectAsBytes(get -> get.bucket("lifecycle").key("object"))
                            .asUtf8String())
                    .isEqualTo("hello");
        }
    }

    @Test
    void closedS3ProxyLeavesNoThreads() throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        try (S3Server s3proxy = S3ProxyServer.start()) {
            exercise(s3proxy);
        }

        threads.assertNoNewThreads(S3ProxyServer.THREAD_NAME_PREFIX, GRACE);
    }

    @Test
    void closedNettyClientLeavesNoThreads() throws Exception {
        try (S3Server s3proxy = S3ProxyServer.start()) {
            s3proxy.createBucket("lifecycle");
            ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
            try (S3AsyncClient async = S3Clients.nettyAsync(s3proxy)) {
                async.putObject(put -> put.bucket("lifecycle").key("async"), AsyncRequestBody.fromString("hello"))
                        .join();
            }

            threads.assertNoNewThreads(S3Clients.NETTY_THREAD_PREFIX, GRACE);
        }
    }

    private static void exercise(S3Server server) {
        server.createBucket("lifecycle");
        server.createBucket("lifecycle"); // idempotent
        try (S3Client s3 = S3Clients.sync(server)) {
            s3.putObject(put -> put.bucket("lifecycle").key("object"), RequestBody.fromString("hello"));
            assertThat(s3.getObjectAsBytes(get -> get.bucket("lifecycle").key("object"))
                            .asUtf8String())
                    .isEqualTo("hello");
        }
    }
}
