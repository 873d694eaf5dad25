package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.io.FileRange;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.parquet.io.InputFile;

/**
 * Apache Iceberg's {@link S3FileIO} as a catalog loads it: {@code initialize} with the endpoint, path-style
 * addressing, static credentials and region, every other property at its default (so its S3InputStream on the
 * SDK's sync client, Apache HTTP; no analytics accelerator). Streams come from
 * {@code newInputFile(location, length).newStream()}, as Iceberg opens data files whose length a manifest
 * gave; Iceberg has no way to pass an ETag.
 *
 * <p>Positioned and vectored reads use Iceberg's {@link RangeReadable}. Its Parquet file is the adapter
 * iceberg-parquet puts in front of a {@code RangeReadable} stream (whose own class is package-private there):
 * parquet-java's vectored read goes to {@link RangeReadable#readVectored}, which {@code S3InputStream} inherits
 * from the interface: positioned reads, one range after another.
 *
 * <p>Iceberg 1.12 keeps the Apache HTTP clients of its S3 clients in a JVM-wide cache keyed by the HTTP
 * settings, which closing an {@code S3FileIO} does not release: every session shares one connection pool,
 * which outlives it. A later run may therefore find connections an earlier one opened, as a long-lived engine
 * would; nothing else carries over.
 */
public final class IcebergS3FileIOReader implements ReaderUnderTest {

    @Override
    public String name() {
        return "Iceberg S3FileIO";
    }

    @Override
    public String configuration() {
        return "Iceberg 1.12 S3FileIO initialized with " + S3FileIOProperties.ENDPOINT + ", "
                + S3FileIOProperties.PATH_STYLE_ACCESS + ", " + S3FileIOProperties.ACCESS_KEY_ID + ", "
                + S3FileIOProperties.SECRET_ACCESS_KEY + ", " + AwsClientProperties.CLIENT_REGION
                + " (all else default: sync client on Apache HTTP); newInputFile(location, length); positioned and"
                + " vectored reads through RangeReadable (readVectored is the interface's serial default);"
                + " Parquet through iceberg-parquet's RangeReadable adapter, written here; Iceberg's JVM-wide Apache"
                + " HTTP client cache keeps its connection pool across sessions";
    }

    @Override
    public ReaderSession openSession(S3Target target) {
        requireNonNull(target, "target is null");
        S3FileIO io = new S3FileIO();
        try {
            io.initialize(Map.of(
                    S3FileIOProperties.ENDPOINT, target.endpoint().toString(),
                    S3FileIOProperties.PATH_STYLE_ACCESS, Boolean.toString(target.pathStyle()),
                    S3FileIOProperties.ACCESS_KEY_ID, target.accessKey(),
                    S3FileIOProperties.SECRET_ACCESS_KEY, target.secretKey(),
                    AwsClientProperties.CLIENT_REGION, target.region()));
        } catch (RuntimeException | Error e) {
            io.close();
            throw e;
        }
        return new Session(target, io);
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
            return new Stream(openStream(key, length));
        }

        @Override
        public InputFile parquetFile(String key, long length, Optional<String> etag) {
            return new KnownLengthInputFile(target.uri(key), length, () -> {
                Stream stream = new Stream(openStream(key, length));
                return new ParquetStreamAdapter(stream.stream, stream.stream::getPos, stream.stream::seek,
                        Optional.of(stream::readVectored));
            });
        }

        private SeekableInputStream openStream(String key, long length) throws IOException {
            requireNonNull(key, "key is null");
            SeekableInputStream stream = io.newInputFile(target.uri(key), length).newStream();
            if (!(stream instanceof RangeReadable)) {
                stream.close();
                throw new IOException("Iceberg's stream for " + target.uri(key) + " is a "
                        + stream.getClass().getName() + ", not a RangeReadable: positioned reads need one");
            }
            return stream;
        }

        @Override
        public void close() {
            io.close();
        }
    }

    private static final class Stream implements BenchmarkStream {
        private final SeekableInputStream stream;
        private final RangeReadable ranges;

        Stream(SeekableInputStream stream) {
            this.stream = stream;
            this.ranges = (RangeReadable) stream;
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
            ranges.readFully(position, buffer, offset, length);
        }

        @Override
        public boolean hasNativeVectoredRead() {
            return true;
        }

        @Override
        public List<CompletableFuture<ByteBuffer>> readVectored(List<Span> spans, IntFunction<ByteBuffer> allocate)
                throws IOException {
            PendingRanges<FileRange> pending = PendingRanges.of(spans, FileRange::new);
            ranges.readVectored(pending.ranges(), allocate);
            return pending.results();
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }
}
