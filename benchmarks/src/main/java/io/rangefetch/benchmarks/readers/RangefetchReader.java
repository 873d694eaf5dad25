package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions;
import io.rangefetch.S3Location;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import java.io.IOException;
import java.util.Optional;
import org.apache.parquet.io.InputFile;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Rangefetch as its README shows it: one {@link StreamFactory} with {@link StreamConfig#defaults()} over the
 * SDK's async client, streams opened with the length the engine knows (and the ETag, when it knows that).
 * The async client is the SDK's default (Netty) or the CRT, so both can be measured.
 *
 * <p>Its Parquet file is parquet-java's {@code DelegatingSeekableInputStream} over the Rangefetch stream: no
 * vectored read yet, so parquet-java reads a row group's ranges one after another with it.
 */
public final class RangefetchReader implements ReaderUnderTest {

    /** The SDK async client the factory is built on. */
    public enum AsyncClient {
        NETTY("Netty"),
        CRT("CRT");

        private final String label;

        AsyncClient(String label) {
            this.label = label;
        }
    }

    private final AsyncClient asyncClient;

    /** Over the SDK's default async client (Netty). */
    public RangefetchReader() {
        this(AsyncClient.NETTY);
    }

    public RangefetchReader(AsyncClient asyncClient) {
        this.asyncClient = requireNonNull(asyncClient, "asyncClient is null");
    }

    @Override
    public String name() {
        return asyncClient == AsyncClient.NETTY ? "Rangefetch" : "Rangefetch (" + asyncClient.label + ")";
    }

    @Override
    public String configuration() {
        return "StreamFactory with StreamConfig.defaults() over the SDK " + asyncClient.label
                + " S3AsyncClient (SDK defaults; endpoint, region, path-style, static credentials set);"
                + " OpenOptions with the known length (and ETag when known); Parquet through a"
                + " DelegatingSeekableInputStream, no vectored read";
    }

    @Override
    public ReaderSession openSession(S3Target target) {
        requireNonNull(target, "target is null");
        S3AsyncClient s3 = asyncClient == AsyncClient.NETTY ? SdkClients.netty(target) : SdkClients.crt(target);
        try {
            return new Session(target, s3, StreamFactory.create(s3, StreamConfig.defaults()));
        } catch (RuntimeException | Error e) {
            s3.close();
            throw e;
        }
    }

    private static final class Session implements ReaderSession {
        private final S3Target target;
        private final S3AsyncClient s3;
        private final StreamFactory factory;

        Session(S3Target target, S3AsyncClient s3, StreamFactory factory) {
            this.target = target;
            this.s3 = s3;
            this.factory = factory;
        }

        @Override
        public BenchmarkStream open(String key, long length, Optional<String> etag) {
            return new Stream(openStream(key, length, etag));
        }

        @Override
        public InputFile parquetFile(String key, long length, Optional<String> etag) {
            return new KnownLengthInputFile(target.uri(key), length, () -> {
                SeekableS3InputStream stream = openStream(key, length, etag);
                return new ParquetStreamAdapter(stream, stream::getPos, stream::seek, Optional.empty());
            });
        }

        private SeekableS3InputStream openStream(String key, long length, Optional<String> etag) {
            requireNonNull(key, "key is null");
            requireNonNull(etag, "etag is null");
            OpenOptions.Builder options = OpenOptions.builder().length(length);
            etag.ifPresent(options::etag);
            return factory.open(new S3Location(target.bucket(), key), options.build());
        }

        @Override
        public void close() throws IOException {
            // the factory first: it stops its fetches before the client they run on goes away
            Closer.closeAll(factory, s3);
        }
    }

    /** No native vectored read: the runner's fallback reads the ranges with positioned reads. */
    private static final class Stream implements BenchmarkStream {
        private final SeekableS3InputStream stream;

        Stream(SeekableS3InputStream stream) {
            this.stream = stream;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            return stream.read(buffer, offset, length);
        }

        @Override
        public void seek(long position) throws IOException {
            stream.seek(position);
        }

        @Override
        public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
            stream.readFully(position, buffer, offset, length);
        }

        @Override
        public void close() {
            stream.close();
        }
    }
}
