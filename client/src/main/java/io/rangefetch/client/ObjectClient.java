package io.rangefetch.client;

import java.io.FileNotFoundException;
import java.io.IOException;

/**
 * The one seam between Rangefetch and S3. Implementations exist over the SDK's {@code S3AsyncClient} (Netty or
 * CRT) and {@code S3Client}; users may bring their own (an instrumented client, another store).
 *
 * <p>An implementation sends exactly the request it is given, translates errors at this edge and knows nothing
 * about caching. It must be safe to call from many threads at once.
 *
 * <ul>
 *   <li>a missing bucket or key: {@link FileNotFoundException}</li>
 *   <li>412 (the {@code If-Match} ETag no longer matches): {@link PreconditionFailedException}</li>
 *   <li>416 (range past the end): {@link RangeNotSatisfiableException}</li>
 *   <li>anything else: an {@link IOException} naming bucket, key and range</li>
 * </ul>
 */
public interface ObjectClient extends AutoCloseable {

    /** Sends a closed-range GET; the caller reads and closes the returned body. */
    ObjectContent get(RangeGetRequest request) throws IOException;

    /** Sends a HEAD. */
    ObjectMetadata head(ObjectAddress object) throws IOException;

    /**
     * Sends one ListObjectsV2 request and answers its page as the server sent it. A missing bucket is a
     * {@link FileNotFoundException}; other failures name the bucket and prefix. Implementations that cannot list
     * keep this default, which says so: the factory's {@code list} then fails with it.
     */
    default ListPage list(ListRequest request) throws IOException {
        throw new UnsupportedOperationException(
                getClass().getName() + " does not implement ListObjectsV2 (list " + request.describe() + ")");
    }

    /**
     * Releases what this client owns (the SDK-backed clients own nothing: the S3 client they wrap stays its
     * caller's). A {@code StreamFactory} never calls this: whoever created the client closes it, after the
     * factory.
     */
    @Override
    default void close() {}
}
