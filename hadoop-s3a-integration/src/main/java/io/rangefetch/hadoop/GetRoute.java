package io.rangefetch.hadoop;

import java.io.IOException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * Where the GETs of a {@link RangefetchS3AFileSystem}'s streams go: how a request for a key is built and which AWS
 * SDK v2 client sends it. On Hadoop 3.4.0 and later that is S3A's own request factory and client
 * ({@link S3AClientRoute}); on 3.3.x, whose S3A runs on SDK v1, a client built from S3A's settings
 * ({@link S3ASettingsClientRoute}). The file system picks one when it starts and closes it when it closes.
 */
interface GetRoute extends AutoCloseable {
    /** A request for {@code key} in the file system's bucket; the range, {@code If-Match} and version come after. */
    GetObjectRequest.Builder newGetRequestBuilder(String key);

    /** The client that sends it; fails once the file system is closed. */
    S3Client client() throws IOException;

    /** Releases what the route holds of its own (nothing, when the client is S3A's). */
    @Override
    void close();
}
