package io.rangefetch.benchmarks.env;

import io.rangefetch.testing.server.MinioServer;

/** The embedded S3 servers a run can start. */
public enum ServerKind {
    /** The real MinIO binary as a child process; its data can persist between runs. */
    MINIO,
    /** S3Proxy inside this JVM, objects in memory (and so in this JVM's heap); needs nothing installed. */
    S3PROXY;

    /** MinIO when its binary can be found, S3Proxy otherwise. */
    public static ServerKind preferred() {
        return MinioServer.binaryAvailable() ? MINIO : S3PROXY;
    }
}
