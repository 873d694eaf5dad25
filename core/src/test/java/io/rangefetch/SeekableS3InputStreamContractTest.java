package io.rangefetch;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.ContractStream;
import io.rangefetch.testing.SeekableStreamContract;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stream contract on the core stream, opened knowing nothing of the object (the first GET learns its length
 * and ETag), over the in-memory client. {@link SeekableS3InputStreamKnownVersionContractTest} opens it knowing both.
 */
class SeekableS3InputStreamContractTest extends SeekableStreamContract {
    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    /** The length and ETag of each object put, by key. */
    private final Map<String, OpenOptions> versions = new ConcurrentHashMap<>();

    private StreamFactory factory;

    /** How a stream is opened, given the object's {@code version} (its length and ETag): knowing nothing. */
    OpenOptions options(OpenOptions version) {
        return OpenOptions.defaults();
    }

    @Override
    protected StreamSource source() {
        if (factory == null) {
            factory = fixture.factory();
        }
        return new StreamSource() {
            @Override
            public String bucket() {
                return StreamFixture.BUCKET;
            }

            @Override
            public void put(String key, byte[] data) {
                String etag = fixture.client().put(StreamFixture.BUCKET, key, data);
                versions.put(
                        key,
                        OpenOptions.builder().length(data.length).etag(etag).build());
            }

            @Override
            public ContractStream open(String key) throws IOException {
                return of(factory.open(new S3Location(StreamFixture.BUCKET, key), options(versions.get(key))));
            }
        };
    }

    /** The core stream as a {@link ContractStream}: each operation is the stream's own. */
    static ContractStream of(SeekableS3InputStream stream) {
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
            public long getPos() {
                return stream.getPos();
            }

            @Override
            public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
                stream.readFully(position, buffer, offset, length);
            }

            @Override
            public OptionalLong length() throws IOException {
                return OptionalLong.of(stream.length());
            }

            @Override
            public List<CompletableFuture<ByteBuffer>> readVectored(List<Range> ranges) throws IOException {
                List<FileRange> reads = ranges.stream()
                        .map(range -> FileRange.of(range.offset(), range.length()))
                        .toList();
                stream.readVectored(reads, ByteBuffer::allocate);
                return reads.stream().map(FileRange::data).toList();
            }

            @Override
            public void close() {
                stream.close();
            }
        };
    }
}
