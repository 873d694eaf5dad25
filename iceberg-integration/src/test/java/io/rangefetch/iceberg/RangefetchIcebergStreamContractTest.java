package io.rangefetch.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.testing.ContractStream;
import io.rangefetch.testing.SeekableStreamContract;
import io.rangefetch.testing.server.S3Clients;
import io.rangefetch.testing.server.S3ProxyServer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.io.FileRange;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The stream contract on Iceberg's stream ({@link RangefetchIcebergStream}), opened as Iceberg opens a data file:
 * {@code newInputFile(location, length).newStream()} on a {@link RangefetchS3FileIO}, whose own client reaches
 * S3Proxy in this JVM (the FileIO needs an SDK client, which the in-memory client is not). Its streaming calls are
 * {@link SeekableInputStream}'s, its positioned and vectored ones {@link RangeReadable}'s.
 */
class RangefetchIcebergStreamContractTest extends SeekableStreamContract {
    private static final String BUCKET = "iceberg-contract";

    private static S3ProxyServer server;
    private static S3Client writer;

    /** The length of each object put, by key: Iceberg knows its data files' lengths from the manifests. */
    private final Map<String, Long> lengths = new ConcurrentHashMap<>();

    private RangefetchS3FileIO io;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.start();
        try {
            server.createBucket(BUCKET);
            writer = S3Clients.sync(server);
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
    }

    @AfterAll
    static void stopServer() {
        try {
            if (writer != null) {
                writer.close();
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    @BeforeEach
    void openFileIO() {
        // the FileIO owns the client its supplier builds and closes it; no linger, so its close closes the factory
        io = new RangefetchS3FileIO(() -> S3Clients.sync(server));
        io.initialize(Map.of("rangefetch.factory.linger", "0s"));
    }

    @AfterEach
    void closeFileIO() {
        io.close();
    }

    @Override
    protected StreamSource source() {
        return new StreamSource() {
            @Override
            public String bucket() {
                return BUCKET;
            }

            @Override
            public void put(String key, byte[] data) {
                writer.putObject(request -> request.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
                lengths.put(key, (long) data.length);
            }

            @Override
            public ContractStream open(String key) {
                SeekableInputStream stream = io.newInputFile("s3://" + BUCKET + "/" + key, lengths.get(key))
                        .newStream();
                assertThat(stream).isInstanceOf(RangefetchIcebergStream.class);
                return of(stream);
            }
        };
    }

    /** Iceberg's stream as a {@link ContractStream}: its vectored read takes Iceberg's ranges and an allocator. */
    private static ContractStream of(SeekableInputStream stream) {
        RangeReadable ranged = (RangeReadable) stream;
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
                ranged.readFully(position, buffer, offset, length);
            }

            @Override
            public List<CompletableFuture<ByteBuffer>> readVectored(List<Range> ranges) throws IOException {
                List<FileRange> reads = ranges.stream()
                        .map(range -> new FileRange(new CompletableFuture<>(), range.offset(), range.length()))
                        .toList();
                ranged.readVectored(reads, ByteBuffer::allocate);
                return reads.stream().map(FileRange::byteBuffer).toList();
            }

            @Override
            public void close() throws IOException {
                stream.close();
            }
        };
    }
}
