package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.FileRange;
import io.rangefetch.OpenOptions;
import io.rangefetch.S3Location;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.parquet.S3ParquetInputFile;
import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.parquet.io.InputFile;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Rangefetch as its README shows it: one {@link StreamFactory} with {@link StreamConfig#defaults()} over an SDK
 * client, streams opened with the length the engine knows (and the ETag, when it knows that). The client is
 * the SDK's sync client by default (measured here to cost the least CPU per byte: the Netty client copies
 * every chunk once more and hands it across threads), or the Netty or CRT async client, so each can be measured.
 *
 * <p>Its Parquet file is rangefetch-parquet's {@link S3ParquetInputFile}, whose streams implement parquet-java's
 * vectored read with {@link SeekableS3InputStream#readVectored}.
 */
public final class RangefetchReader implements ReaderUnderTest {

    /** The SDK client the factory is built on. */
    public enum Client {
        SYNC("sync (Apache)"),
        NETTY("Netty"),
        CRT("CRT");

        private final String label;

        Client(String label) {
            this.label = label;
        }
    }

    private final Client client;

    /** Over the SDK's sync client. */
    public RangefetchReader() {
        this(Client.SYNC);
    }

    public RangefetchReader(Client client) {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public String name() {
        return client == Client.SYNC ? "Rangefetch" : "Rangefetch (" + client.label + ")";
    }

    @Override
    public String configuration() {
        return "StreamFactory with StreamConfig.defaults() over the SDK " + client.label
                + " S3 client (SDK defaults; endpoint, region, path-style, static credentials set);"
                + " OpenOptions with the known length (and ETag when known); Parquet through"
                + " rangefetch-parquet's S3ParquetInputFile (vectored reads)";
    }

    @Override
    public ReaderSession openSession(S3Target target) {
        requireNonNull(target, "target is null");
        if (client == Client.SYNC) {
            S3Client s3 = SdkClients.sync(target);
            return sessionOver(target, s3, () -> StreamFactory.create(s3, StreamConfig.defaults()));
        }
        S3AsyncClient s3 = client == Client.NETTY ? SdkClients.netty(target) : SdkClients.crt(target);
        return sessionOver(target, s3, () -> StreamFactory.create(s3, StreamConfig.defaults()));
    }

    private static ReaderSession sessionOver(S3Target target, AutoCloseable s3,
            Supplier<StreamFactory> factory) {
        try {
            return new Session(target, s3, factory.get());
        } catch (RuntimeException | Error e) {
            try {
                s3.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static final class Session implements ReaderSession {
        private final S3Target target;
        private final AutoCloseable s3;
        private final StreamFactory factory;

        Session(S3Target target, AutoCloseable s3, StreamFactory factory) {
            this.target = target;
            this.s3 = s3;
            this.factory = factory;
        }

        @Override
        public BenchmarkStream open(String key, long length, Optional<String> etag) {
            SeekableS3InputStream stream = openStream(key, length, etag);
            return new DelegatingBenchmarkStream(stream, stream::seek, stream::readFully,
                    Optional.of((spans, allocate) -> readVectored(stream, spans, allocate)));
        }

        @Override
        public InputFile parquetFile(String key, long length, Optional<String> etag) {
            requireNonNull(key, "key is null");
            return new S3ParquetInputFile(factory, new S3Location(target.bucket(), key), options(length, etag));
        }

        private static List<CompletableFuture<ByteBuffer>> readVectored(SeekableS3InputStream stream,
                List<Span> spans, IntFunction<ByteBuffer> allocate) throws IOException {
            List<FileRange> ranges = spans.stream().map(span -> FileRange.of(span.offset(), span.length())).toList();
            stream.readVectored(ranges, allocate);
            return ranges.stream().map(FileRange::data).toList();
        }

        private SeekableS3InputStream openStream(String key, long length, Optional<String> etag) {
            requireNonNull(key, "key is null");
            return factory.open(new S3Location(target.bucket(), key), options(length, etag));
        }

        private static OpenOptions options(long length, Optional<String> etag) {
            requireNonNull(etag, "etag is null");
            OpenOptions.Builder options = OpenOptions.builder().length(length);
            etag.ifPresent(options::etag);
            return options.build();
        }

        @Override
        public void close() throws IOException {
            // the factory first: it stops its fetches before the client they run on goes away
            Closer.closeAll(factory, s3);
        }
    }
}
