package io.rangefetch.hadoop;

import java.io.IOException;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * GETs the way S3A's own streams send them, on Hadoop 3.4.0 and later: S3A's request factory builds the request
 * (bucket, SSE-C key, requester-pays) and S3A's SDK v2 client sends it, so its credentials, endpoint, client settings
 * and audit interceptor apply. Holds nothing of its own. Loaded only where {@code S3AInternals} exists.
 */
final class S3AClientRoute implements GetRoute {
    private final S3AFileSystem fileSystem;

    S3AClientRoute(S3AFileSystem fileSystem) {
        this.fileSystem = fileSystem;
    }

    @Override
    public GetObjectRequest.Builder newGetRequestBuilder(String key) {
        return fileSystem.getRequestFactory().newGetObjectRequestBuilder(key);
    }

    @Override
    public S3Client client() throws IOException {
        S3Client client;
        try {
            client = fileSystem.getS3AInternals().getAmazonS3Client("Rangefetch GET");
        } catch (RuntimeException e) {
            throw new IOException(
                    "S3A's client of " + fileSystem.getUri() + " is gone (the file system is closed?)", e);
        }
        if (client == null) {
            throw new IOException("S3A's client of " + fileSystem.getUri() + " is gone: the file system is closed");
        }
        return client;
    }

    @Override
    public void close() {}
}
