package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import io.rangefetch.client.S3Location;
import io.rangefetch.parquet.S3ParquetInputFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.parquet.io.InputFile;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Rangefetch as its README shows it: one {@link StreamFactory} with {@link StreamConfig#defaults()} over an SDK
 * client whose own retries are off (Rangefetch retries itself; see {@link SdkClients}), streams opened with the
 * length the engine knows (and the ETag, when it knows that). The client is the SDK's sync client by default
 * (measured here to cost the least CPU per byte: the Netty client copies every chunk once more and hands it
 * across threads), or the Netty or CRT async client, so each can be measured.
 *
 * <p>{@link #withSetting} makes a variant with one setting changed, as the resilience scenarios compare the
 * throttle governor or hedging on and off; its name says which.
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
    // StreamConfig keys and values over the defaults, in the order given
    private final Map<String, String> settings;

    /** Over the SDK's sync client. */
    public RangefetchReader() {
        this(Client.SYNC);
    }

    public RangefetchReader(Client client) {
        this(client, Map.of());
    }

    private RangefetchReader(Client client, Map<String, String> settings) {
        this.client = requireNonNull(client, "client is null");
        this.settings = settings;
        config(); // a bad key or value fails here, before any run
    }

    /**
     * This reader with {@code key} (a {@link StreamConfig} key such as {@code throttle.enabled}) set to {@code
     * value} over the defaults; its name ends with the setting.
     *
     * @throws IllegalArgumentException if the key is unknown, the value does not parse, or the key is set already
     */
    public RangefetchReader withSetting(String key, String value) {
        requireNonNull(key, "key is null");
        requireNonNull(value, "value is null");
        if (settings.containsKey(key)) {
            throw new IllegalArgumentException(key + " is set already (" + settings.get(key) + ") on " + name());
        }
        Map<String, String> more = new LinkedHashMap<>(settings);
        more.put(key, value);
        return new RangefetchReader(client, Collections.unmodifiableMap(more));
    }

    @Override
    public String name() {
        String base = client == Client.SYNC ? "Rangefetch" : "Rangefetch (" + client.label + ")";
        return settings.isEmpty() ? base : base + ", " + describeSettings();
    }

    @Override
    public String configuration() {
        String config =
                settings.isEmpty() ? "StreamConfig.defaults()" : "StreamConfig defaults but " + describeSettings();
        String retries = client == Client.CRT
                ? "its retries at " + SdkClients.CRT_FEWEST_RETRIES + ", the fewest the CRT allows"
                : "its retries off (AwsRetryStrategy.doNotRetry())";
        return "StreamFactory with " + config + " over the SDK " + client.label + " S3 client (SDK defaults but "
                + retries + ": Rangefetch retries itself; endpoint, region, path-style, static credentials set);"
                + " OpenOptions with the known length (and ETag when known); Parquet through"
                + " rangefetch-parquet's S3ParquetInputFile (vectored reads)";
    }

    @Override
    public boolean isRangefetch() {
        return true;
    }

    @Override
    public ReaderSession openSession(S3Target target) {
        requireNonNull(target, "target is null");
        StreamConfig config = config();
        if (client == Client.SYNC) {
            S3Client s3 = SdkClients.syncWithoutRetries(target);
            return sessionOver(target, s3, () -> StreamFactory.create(s3, config));
        }
        S3AsyncClient s3 = client == Client.NETTY
                ? SdkClients.nettyWithoutRetries(target)
                : SdkClients.crtWithFewestRetries(target);
        return sessionOver(target, s3, () -> StreamFactory.create(s3, config));
    }

    private StreamConfig config() {
        return settings.isEmpty() ? StreamConfig.defaults() : StreamConfig.fromProperties(settings, "");
    }

    private String describeSettings() {
        return settings.entrySet().stream()
                .map(setting -> setting.getKey() + "=" + setting.getValue())
                .collect(Collectors.joining(", "));
    }

    private static ReaderSession sessionOver(S3Target target, AutoCloseable s3, Supplier<StreamFactory> factory) {
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
        public RangefetchAccess rangefetch() {
            return new RangefetchAccess(factory, target.bucket());
        }

        @Override
        public BenchmarkStream open(String key, long length, Optional<String> etag) {
            SeekableS3InputStream stream = openStream(key, length, etag);
            return new DelegatingBenchmarkStream(
                    stream,
                    stream::seek,
                    stream::readFully,
                    Optional.of((spans, allocate) -> readVectored(stream, spans, allocate)));
        }

        @Override
        public InputFile parquetFile(String key, long length, Optional<String> etag) {
            requireNonNull(key, "key is null");
            return new S3ParquetInputFile(factory, new S3Location(target.bucket(), key), options(length, etag));
        }

        private static List<CompletableFuture<ByteBuffer>> readVectored(
                SeekableS3InputStream stream, List<Span> spans, IntFunction<ByteBuffer> allocate) throws IOException {
            List<FileRange> ranges = spans.stream()
                    .map(span -> FileRange.of(span.offset(), span.length()))
                    .toList();
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
