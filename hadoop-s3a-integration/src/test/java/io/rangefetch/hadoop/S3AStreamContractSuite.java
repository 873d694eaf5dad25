package io.rangefetch.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.testing.ContractStream;
import io.rangefetch.testing.SeekableStreamContract;
import io.rangefetch.testing.server.S3Clients;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The stream contract on Hadoop's streams: {@link RangefetchObjectInputStream}, which S3A's stream factory seam opens
 * with {@link RangefetchStreamFactory}, or, for a class marked {@link ProxiedS3A.ThroughFileSystem}, {@link
 * RangefetchFSInputStream}, which {@link RangefetchS3AFileSystem#open} returns. A stream is opened as Hadoop readers
 * open one, with {@code FileSystem.open} (S3A's HEAD first), on one of the run's servers through its proxy
 * ({@link ProxiedS3A}); the objects are written to the server directly. The contract reads the stream inside
 * Hadoop's {@code FSDataInputStream}, which only forwards to it, and checks first that it is Rangefetch's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class S3AStreamContractSuite extends SeekableStreamContract {
    private FileSystem fs;
    private S3Client writer;

    @BeforeAll
    void openFileSystem() throws IOException {
        ProxiedS3A s3a = ProxiedS3A.of(getClass());
        Configuration conf = ProxiedS3A.withRangefetchFor(getClass(), s3a.s3aConfiguration());
        // no linger: closing the file system closes the Rangefetch factory and its threads
        conf.set(HadoopSettings.CONFIG_PREFIX + "factory.linger", "0s");
        fs = FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), conf);
        writer = S3Clients.sync(s3a.server());
    }

    @AfterAll
    void closeFileSystem() throws IOException {
        try {
            if (writer != null) {
                writer.close();
            }
        } finally {
            if (fs != null) {
                fs.close();
            }
        }
    }

    /** The stream class this entry point must hand out. */
    private Class<?> expectedStream() {
        return getClass().isAnnotationPresent(ProxiedS3A.ThroughFileSystem.class)
                ? RangefetchFSInputStream.class
                : RangefetchObjectInputStream.class;
    }

    @Override
    protected StreamSource source() {
        return new StreamSource() {
            @Override
            public String bucket() {
                return ProxiedS3A.BUCKET;
            }

            @Override
            public void put(String key, byte[] data) {
                writer.putObject(request -> request.bucket(ProxiedS3A.BUCKET).key(key), RequestBody.fromBytes(data));
            }

            @Override
            public ContractStream open(String key) throws IOException {
                InputStream stream = fs.open(new Path("s3a://" + ProxiedS3A.BUCKET + "/" + key))
                        .getWrappedStream();
                assertThat(stream).isExactlyInstanceOf(expectedStream());
                return of((FSInputStream) stream);
            }
        };
    }

    /** A Hadoop stream as a {@link ContractStream}: its vectored read takes Hadoop's ranges and an allocator. */
    private static ContractStream of(FSInputStream stream) {
        return new ContractStream() {
            @Override
            public int read() throws IOException {
                return stream.read();
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
            public long getPos() throws IOException {
                return stream.getPos();
            }

            @Override
            public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
                stream.readFully(position, buffer, offset, length);
            }

            @Override
            public List<CompletableFuture<ByteBuffer>> readVectored(List<Range> ranges) throws IOException {
                List<FileRange> reads = new ArrayList<>(ranges.size());
                for (Range range : ranges) {
                    reads.add(FileRange.createFileRange(range.offset(), range.length()));
                }
                stream.readVectored(reads, ByteBuffer::allocate);
                return reads.stream().map(FileRange::getData).toList();
            }

            @Override
            public void close() throws IOException {
                stream.close();
            }
        };
    }
}
