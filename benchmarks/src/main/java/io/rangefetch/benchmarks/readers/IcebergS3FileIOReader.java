package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import io.rangefetch.iceberg.RangefetchS3FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileRange;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.parquet.io.InputFile;

/**
 * Apache Iceberg's {@link S3FileIO} as a catalog loads it: {@code initialize} with the endpoint, path-style
 * addressing, static credentials and region, every other property at its default (so its S3InputStream on the
 * SDK's sync client, Apache HTTP; no analytics accelerator). Two variants take the same properties and change one
 * thing: {@link Variant#ANALYTICS_ACCELERATOR} adds {@code s3.analytics-accelerator.enabled=true} (Iceberg's
 * streams from AWS's analytics accelerator, on Iceberg's async client, CRT by default), and
 * {@link Variant#RANGEFETCH} instantiates {@link RangefetchS3FileIO} instead, as a catalog does for
 * {@code io-impl=io.rangefetch.iceberg.RangefetchS3FileIO}. Streams come from
 * {@code newInputFile(location, length).newStream()}, as Iceberg opens data files whose length a manifest
 * gave; Iceberg has no way to pass an ETag. Sessions hand their FileIO to the workloads that read Iceberg tables.
 *
 * <p>Positioned and vectored reads use Iceberg's {@link RangeReadable} where the stream is one (Iceberg's own
 * stream and Rangefetch's). Its Parquet file is the adapter iceberg-parquet puts in front of a
 * {@code RangeReadable} stream (whose own class is package-private there): parquet-java's vectored read goes to
 * {@link RangeReadable#readVectored}, which {@code S3InputStream} inherits from the interface: positioned reads,
 * one range after another. The analytics accelerator's stream in Iceberg 1.12 is no {@code RangeReadable}: a
 * positioned read is a seek, a read and a seek back, and parquet-java reads vectored ranges one by one, as
 * iceberg-parquet does with such a stream.
 *
 * <p>Iceberg 1.12 keeps the Apache HTTP clients of its S3 clients in a JVM-wide cache keyed by the HTTP
 * settings, which closing an {@code S3FileIO} does not release: every session shares one connection pool,
 * which outlives it. A later run may therefore find connections an earlier one opened, as a long-lived engine
 * would; nothing else carries over.
 */
public final class IcebergS3FileIOReader implements ReaderUnderTest {

    /** Which FileIO, configured how. */
    public enum Variant {
        /** {@code S3FileIO} with its defaults. */
        DEFAULT("Iceberg S3FileIO", "all else default: sync client on Apache HTTP"),
        /** {@code S3FileIO} with {@code s3.analytics-accelerator.enabled=true}. */
        ANALYTICS_ACCELERATOR(
                "Iceberg S3FileIO + AAL",
                S3FileIOProperties.S3_ANALYTICS_ACCELERATOR_ENABLED
                        + "=true, all else default: the analytics accelerator's streams on Iceberg's async client (CRT)"),
        /** {@link RangefetchS3FileIO}, as {@code io-impl} selects it. */
        RANGEFETCH(
                "RangefetchS3FileIO",
                "instantiated as io-impl=" + RangefetchS3FileIO.class.getName()
                        + " would, all else default: Rangefetch's StreamConfig defaults over S3FileIO's sync client");

        private final String readerName;
        private final String settings;

        Variant(String readerName, String settings) {
            this.readerName = readerName;
            this.settings = settings;
        }
    }

    private final Variant variant;

    /** Iceberg's {@code S3FileIO} with its defaults. */
    public IcebergS3FileIOReader() {
        this(Variant.DEFAULT);
    }

    public IcebergS3FileIOReader(Variant variant) {
        this.variant = requireNonNull(variant, "variant is null");
    }

    @Override
    public String name() {
        return variant.readerName;
    }

    @Override
    public String configuration() {
        String fileIO = variant == Variant.RANGEFETCH
                ? "rangefetch-iceberg RangefetchS3FileIO (Iceberg 1.12)"
                : "Iceberg 1.12 S3FileIO";
        return fileIO + " initialized with " + S3FileIOProperties.ENDPOINT + ", "
                + S3FileIOProperties.PATH_STYLE_ACCESS + ", " + S3FileIOProperties.ACCESS_KEY_ID + ", "
                + S3FileIOProperties.SECRET_ACCESS_KEY + ", " + AwsClientProperties.CLIENT_REGION
                + " (" + variant.settings + "); newInputFile(location, length); positioned and"
                + " vectored reads through RangeReadable where the stream is one (S3InputStream's readVectored is the"
                + " interface's serial default), else seek, read and seek back; Parquet through iceberg-parquet's"
                + " RangeReadable adapter, written here; Iceberg tables opened with this FileIO"
                + " (StaticTableOperations) and read with IcebergGenerics; Iceberg's JVM-wide Apache HTTP client cache"
                + " keeps its connection pool across sessions";
    }

    @Override
    public boolean isIcebergFileIO() {
        return true;
    }

    @Override
    public ReaderSession openSession(S3Target target) {
        requireNonNull(target, "target is null");
        return new Session(target, initialize(variant, target));
    }

    /** The FileIO a catalog would build for {@code variant} against {@code target}. */
    static S3FileIO initialize(Variant variant, S3Target target) {
        Map<String, String> properties = new HashMap<>(Map.of(
                S3FileIOProperties.ENDPOINT, target.endpoint().toString(),
                S3FileIOProperties.PATH_STYLE_ACCESS, Boolean.toString(target.pathStyle()),
                S3FileIOProperties.ACCESS_KEY_ID, target.accessKey(),
                S3FileIOProperties.SECRET_ACCESS_KEY, target.secretKey(),
                AwsClientProperties.CLIENT_REGION, target.region()));
        if (variant == Variant.ANALYTICS_ACCELERATOR) {
            properties.put(S3FileIOProperties.S3_ANALYTICS_ACCELERATOR_ENABLED, "true");
        }
        if (variant == Variant.RANGEFETCH) {
            // a session is one run, started cold as the baselines' are: the shared factory must not linger into the
            // next session and carry its cache over (factory.linger, 5 minutes by default)
            properties.put(RangefetchS3FileIO.PREFIX + "factory.linger", "0s");
        }
        S3FileIO io = variant == Variant.RANGEFETCH ? new RangefetchS3FileIO() : new S3FileIO();
        try {
            io.initialize(properties);
        } catch (RuntimeException | Error e) {
            io.close();
            throw e;
        }
        return io;
    }

    private static final class Session implements ReaderSession {
        private final S3Target target;
        private final S3FileIO io;

        Session(S3Target target, S3FileIO io) {
            this.target = target;
            this.io = io;
        }

        @Override
        public BenchmarkStream open(String key, long length, Optional<String> etag) throws IOException {
            SeekableInputStream stream = openStream(key, length);
            if (stream instanceof RangeReadable ranges) {
                return new DelegatingBenchmarkStream(
                        stream,
                        stream::seek,
                        ranges::readFully,
                        Optional.of((spans, allocate) -> readVectored(ranges, spans, allocate)));
            }
            return new DelegatingBenchmarkStream(
                    stream,
                    stream::seek,
                    (position, buffer, offset, count) -> seekAndRead(stream, position, buffer, offset, count),
                    Optional.empty());
        }

        @Override
        public InputFile parquetFile(String key, long length, Optional<String> etag) {
            return new KnownLengthInputFile(target.uri(key), length, () -> {
                SeekableInputStream stream = openStream(key, length);
                return new ParquetStreamAdapter(
                        stream,
                        stream::getPos,
                        stream::seek,
                        stream instanceof RangeReadable ranges
                                ? Optional.of((spans, allocate) -> readVectored(ranges, spans, allocate))
                                : Optional.empty());
            });
        }

        @Override
        public FileIO icebergFileIO() {
            return io;
        }

        private SeekableInputStream openStream(String key, long length) {
            requireNonNull(key, "key is null");
            return io.newInputFile(target.uri(key), length).newStream();
        }

        // what a caller of a stream without positioned reads does (Hadoop's default readFully(position) too):
        // seek, read, and seek back, so the stream's position stays where it was
        private static void seekAndRead(
                SeekableInputStream stream, long position, byte[] buffer, int offset, int length) throws IOException {
            long saved = stream.getPos();
            stream.seek(position);
            try {
                IOUtil.readFully(stream, buffer, offset, length);
            } finally {
                stream.seek(saved);
            }
        }

        @Override
        public void close() {
            io.close();
        }

        private static List<CompletableFuture<ByteBuffer>> readVectored(
                RangeReadable ranges, List<Span> spans, IntFunction<ByteBuffer> allocate) throws IOException {
            PendingRanges<FileRange> pending = PendingRanges.of(spans, FileRange::new);
            ranges.readVectored(pending.ranges(), allocate);
            return pending.results();
        }
    }
}
