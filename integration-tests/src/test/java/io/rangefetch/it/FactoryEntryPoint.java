package io.rangefetch.it;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3Server;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Rangefetch used directly: a {@link StreamFactory} on a sync client built as the README tells a caller who brings
 * their own client (the SDK's retries off).
 */
public final class FactoryEntryPoint implements EntryPoint {
    private final S3Client client;
    private final StreamFactory factory;

    private FactoryEntryPoint(S3Client client, StreamFactory factory) {
        this.client = client;
        this.factory = factory;
    }

    /** A factory with {@code settings} on a fresh client to {@code server}, with {@code interceptors}. */
    public static FactoryEntryPoint create(
            S3Server server, Map<String, String> settings, ExecutionInterceptor... interceptors) {
        StreamConfig config = StreamConfig.fromProperties(settings, "");
        S3Client client = S3Clients.syncWithoutSdkRetries(server, interceptors);
        try {
            return new FactoryEntryPoint(client, StreamFactory.create(client, config));
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** The factory, for a test that opens streams with options no other entry point has. */
    public StreamFactory factory() {
        return factory;
    }

    @Override
    public EntryStream open(S3Location location, long length, String etag) {
        if (length < 0) {
            return of(factory.open(location));
        }
        OpenOptions.Builder options = OpenOptions.builder().length(length);
        if (etag != null) {
            options.etag(etag);
        }
        return of(factory.open(location, options.build()));
    }

    @Override
    public boolean passesEtag() {
        return true;
    }

    @Override
    public boolean headsWhenOpenedKnowingNothing() {
        return false;
    }

    @Override
    public boolean isVersionChange(IOException failure) {
        return failure instanceof ObjectChangedException;
    }

    @Override
    public long cacheMemoryBytes() {
        return factory.cacheMemoryBytes();
    }

    @Override
    public long peakCacheMemoryBytes() {
        return factory.peakCacheMemoryBytes();
    }

    @Override
    public StreamStatistics statistics() {
        return factory.statistics();
    }

    /** Closes the factory (its fetches end while the client is still open), then the client. */
    @Override
    public void close() {
        try {
            factory.close();
        } finally {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "StreamFactory";
    }

    /** Rangefetch's own stream as an {@link EntryStream}. */
    public static EntryStream of(SeekableS3InputStream stream) {
        requireNonNull(stream, "stream is null");
        return new EntryStream() {
            @Override
            public void readFully(long position, byte[] buffer) throws IOException {
                stream.readFully(position, buffer, 0, buffer.length);
            }

            @Override
            public void seek(long position) throws IOException {
                stream.seek(position);
            }

            @Override
            public long getPos() {
                return stream.getPos();
            }

            @Override
            public int readNBytes(byte[] buffer, int offset, int length) throws IOException {
                return stream.readNBytes(buffer, offset, length);
            }

            @Override
            public int readTail(byte[] buffer) throws IOException {
                return stream.readTail(buffer, 0, buffer.length);
            }

            @Override
            public List<CompletableFuture<ByteBuffer>> readVectored(List<FileRange> ranges) throws IOException {
                stream.readVectored(ranges, ByteBuffer::allocate);
                return ranges.stream().map(FileRange::data).toList();
            }

            @Override
            public String describe() {
                return stream.location().toString();
            }

            @Override
            public void close() {
                stream.close();
            }
        };
    }
}
