package io.rangefetch.iceberg;

import io.rangefetch.ObjectChangedException;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import io.rangefetch.it.EntryPoint;
import io.rangefetch.it.EntryStream;
import io.rangefetch.testing.server.S3Server;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * {@link RangefetchS3FileIO} as a catalog makes it ({@code io-impl}): initialized from catalog properties naming
 * the endpoint and credentials and nothing of Iceberg's retries, so its S3 client is built with the default
 * {@code s3.retry.*} properties (retries of its own, which Rangefetch's one-attempt requests must bypass). Streams
 * are opened as Iceberg's readers open them: {@code newInputFile(path)} or {@code newInputFile(path, length)} (an
 * input file carries no ETag), then {@code newStream()}, read through {@link SeekableInputStream} and
 * {@link RangeReadable}.
 */
final class IcebergEntryPoint implements EntryPoint {
    private final RangefetchS3FileIO io;

    private IcebergEntryPoint(RangefetchS3FileIO io) {
        this.io = io;
    }

    /** The FileIO on {@code server} with Rangefetch {@code settings} as {@code rangefetch.*} catalog properties. */
    static IcebergEntryPoint create(S3Server server, Map<String, String> settings) {
        Map<String, String> properties = new HashMap<>();
        properties.put("s3.endpoint", server.endpoint().toString());
        properties.put("s3.path-style-access", "true");
        properties.put("s3.access-key-id", server.accessKey());
        properties.put("s3.secret-access-key", server.secretKey());
        properties.put("client.region", server.region());
        settings.forEach((key, value) -> properties.put(RangefetchS3FileIO.PREFIX + key, value));
        RangefetchS3FileIO io = new RangefetchS3FileIO();
        io.initialize(properties);
        return new IcebergEntryPoint(io);
    }

    @Override
    public EntryStream open(S3Location location, long length, String etag) {
        String path = "s3://" + location.bucket() + "/" + location.key();
        InputFile file = length < 0 ? io.newInputFile(path) : io.newInputFile(path, length);
        SeekableInputStream stream = file.newStream();
        return new IcebergEntryStream(stream, path);
    }

    @Override
    public boolean passesEtag() {
        return false;
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
    public boolean closesItsConnections() {
        return false;
    }

    @Override
    public long cacheMemoryBytes() {
        return io.cacheMemoryBytes();
    }

    @Override
    public long peakCacheMemoryBytes() {
        return io.peakCacheMemoryBytes();
    }

    /** The one factory's (every path here is handed the same client). */
    @Override
    public StreamStatistics statistics() {
        List<StreamStatistics> statistics = io.statistics();
        if (statistics.size() != 1) {
            throw new IllegalStateException("expected one stream factory, found " + statistics.size());
        }
        return statistics.get(0);
    }

    @Override
    public void close() {
        io.close();
    }

    @Override
    public String toString() {
        return "RangefetchS3FileIO";
    }

    private record IcebergEntryStream(SeekableInputStream stream, String path) implements EntryStream {
        @Override
        public void readFully(long position, byte[] buffer) throws IOException {
            ranged().readFully(position, buffer, 0, buffer.length);
        }

        @Override
        public void seek(long position) throws IOException {
            stream.seek(position);
        }

        @Override
        public long getPos() throws IOException {
            return stream.getPos();
        }

        @Override
        public int readNBytes(byte[] buffer, int offset, int length) throws IOException {
            return stream.readNBytes(buffer, offset, length);
        }

        @Override
        public int readTail(byte[] buffer) throws IOException {
            return ranged().readTail(buffer, 0, buffer.length);
        }

        @Override
        public List<CompletableFuture<ByteBuffer>> readVectored(List<FileRange> ranges) throws IOException {
            List<org.apache.iceberg.io.FileRange> icebergRanges = new ArrayList<>(ranges.size());
            for (FileRange range : ranges) {
                icebergRanges.add(
                        new org.apache.iceberg.io.FileRange(new CompletableFuture<>(), range.offset(), range.length()));
            }
            ranged().readVectored(icebergRanges, ByteBuffer::allocate);
            return icebergRanges.stream()
                    .map(org.apache.iceberg.io.FileRange::byteBuffer)
                    .toList();
        }

        private RangeReadable ranged() {
            return (RangeReadable) stream;
        }

        @Override
        public String describe() {
            return path;
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }
}
