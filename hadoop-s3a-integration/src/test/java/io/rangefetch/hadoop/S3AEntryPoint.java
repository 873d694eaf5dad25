package io.rangefetch.hadoop;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.StreamFactory;
import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import io.rangefetch.it.EntryPoint;
import io.rangefetch.it.EntryStream;
import io.rangefetch.testing.server.S3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FutureDataInputStreamBuilder;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.service.CompositeService;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * S3A with {@link RangefetchStreamFactory}, chosen with the README's two settings, on S3A's own client with S3A's
 * default retry settings ({@code fs.s3a.attempts.maximum}, {@code fs.s3a.retry.*}: retries of its own, which
 * Rangefetch's one-attempt requests must bypass). Streams are opened as Hadoop readers open them: knowing nothing
 * with {@code getFileStatus} then {@code openFile} with that status (one HEAD, as {@code FileSystem.open} sends
 * and parquet-java's {@code HadoopInputFile} does), the length with {@code fs.option.openfile.length} (no HEAD), or
 * the length and the ETag with a status carrying both.
 */
final class S3AEntryPoint implements EntryPoint {
    private final S3AFileSystem fs;
    private final StreamFactory factory;

    private S3AEntryPoint(S3AFileSystem fs, StreamFactory factory) {
        this.fs = fs;
        this.factory = factory;
    }

    /** A fresh S3A file system on {@code server} with Rangefetch {@code settings} as {@code fs.s3a.rangefetch.*}. */
    static S3AEntryPoint create(S3Server server, String bucket, Map<String, String> settings) throws IOException {
        Configuration conf = ProxiedS3A.withRangefetch(ProxiedS3A.s3aConfiguration(server));
        settings.forEach((key, value) -> conf.set(RangefetchStreamFactory.CONFIG_PREFIX + key, value));
        S3AFileSystem fs = (S3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + bucket + "/"), conf);
        try {
            return new S3AEntryPoint(fs, rangefetchOf(fs));
        } catch (RuntimeException e) {
            fs.close();
            throw e;
        }
    }

    /** The factory S3A made from the settings: a service of S3A's store, found through Hadoop's public API. */
    private static StreamFactory rangefetchOf(S3AFileSystem fs) {
        if (!(fs.getS3AInternals().getStore() instanceof CompositeService store)) {
            throw new IllegalStateException("S3A's store is no composite service: cannot find its stream factory");
        }
        return store.getServices().stream()
                .filter(RangefetchStreamFactory.class::isInstance)
                .map(service -> ((RangefetchStreamFactory) service).rangefetch())
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException("no RangefetchStreamFactory among " + store.getServices()));
    }

    @Override
    public EntryStream open(S3Location location, long length, String etag) throws IOException {
        Path path = fs.makeQualified(new Path("s3a://" + location.bucket() + "/" + location.key()));
        FutureDataInputStreamBuilder builder = fs.openFile(path);
        long known;
        if (length < 0) {
            FileStatus status = fs.getFileStatus(path);
            builder.withFileStatus(status);
            known = status.getLen();
        } else if (etag == null) {
            builder.opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_LENGTH, Long.toString(length));
            known = length;
        } else {
            builder.withFileStatus(
                    new S3AFileStatus(length, 0L, path, fs.getDefaultBlockSize(path), fs.getUsername(), etag, null));
            known = length;
        }
        return new S3AEntryStream(FutureIO.awaitFuture(builder.build()), path, known);
    }

    @Override
    public boolean passesEtag() {
        return true;
    }

    @Override
    public boolean headsWhenOpenedKnowingNothing() {
        return true;
    }

    @Override
    public boolean isVersionChange(IOException failure) {
        return failure instanceof RemoteFileChangedException;
    }

    @Override
    public boolean readsAnEmptyRangeAtTheEnd() {
        return false;
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

    /** Closes the file system: S3A stops its services, the factory among them, then its client. */
    @Override
    public void close() throws IOException {
        fs.close();
    }

    @Override
    public String toString() {
        return "S3A with RangefetchStreamFactory";
    }

    /** A Hadoop stream: a tail read is a positioned read at the length less the tail, as Hadoop readers make it. */
    private record S3AEntryStream(FSDataInputStream stream, Path path, long length) implements EntryStream {
        @Override
        public void readFully(long position, byte[] buffer) throws IOException {
            stream.readFully(position, buffer, 0, buffer.length);
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
            int tail = (int) Math.min(buffer.length, length);
            stream.readFully(length - tail, buffer, 0, tail);
            return tail;
        }

        @Override
        public List<CompletableFuture<ByteBuffer>> readVectored(List<FileRange> ranges) throws IOException {
            List<org.apache.hadoop.fs.FileRange> hadoopRanges = new ArrayList<>(ranges.size());
            for (FileRange range : ranges) {
                hadoopRanges.add(org.apache.hadoop.fs.FileRange.createFileRange(range.offset(), range.length()));
            }
            stream.readVectored(hadoopRanges, ByteBuffer::allocate);
            return hadoopRanges.stream()
                    .map(org.apache.hadoop.fs.FileRange::getData)
                    .toList();
        }

        @Override
        public String describe() {
            return path.toString();
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }
}
