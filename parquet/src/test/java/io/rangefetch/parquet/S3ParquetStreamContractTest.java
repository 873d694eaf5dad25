package io.rangefetch.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.ContractStream;
import io.rangefetch.testing.SeekableStreamContract;
import io.rangefetch.testing.StreamFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stream contract on parquet-java's stream ({@link S3ParquetStream}), opened as parquet-java opens it: a new
 * stream of an {@link S3ParquetInputFile} that knows nothing of the object yet, over the in-memory client. Its API
 * has no positioned read and no length (parquet-java asks the input file for that), so the cases that need a
 * positioned read are skipped.
 */
class S3ParquetStreamContractTest extends SeekableStreamContract {
    @RegisterExtension
    final StreamFixture fixture = new StreamFixture();

    private StreamFactory factory;

    @Override
    protected boolean hasPositionedReads() {
        return false;
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
                fixture.client().put(StreamFixture.BUCKET, key, data);
            }

            @Override
            public ContractStream open(String key) throws IOException {
                SeekableInputStream stream =
                        new S3ParquetInputFile(factory, new S3Location(StreamFixture.BUCKET, key)).newStream();
                assertThat(stream).isInstanceOf(S3ParquetStream.class);
                return of(stream);
            }
        };
    }

    /** parquet-java's stream as a {@link ContractStream}: its vectored read takes its ranges and an allocator. */
    private static ContractStream of(SeekableInputStream stream) {
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
            public List<CompletableFuture<ByteBuffer>> readVectored(List<Range> ranges) throws IOException {
                List<ParquetFileRange> reads = ranges.stream()
                        .map(range -> new ParquetFileRange(range.offset(), range.length()))
                        .toList();
                stream.readVectored(reads, HeapByteBufferAllocator.getInstance());
                return reads.stream().map(ParquetFileRange::getDataReadFuture).toList();
            }

            @Override
            public void close() throws IOException {
                stream.close();
            }
        };
    }
}
