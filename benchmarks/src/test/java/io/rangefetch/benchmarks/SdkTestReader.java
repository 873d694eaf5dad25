package io.rangefetch.benchmarks;

import io.rangefetch.benchmarks.readers.BenchmarkStream;
import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.readers.S3Target;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The simplest reader there is, for testing the runner without the real ones: one ranged GET per call on
 * the plain SDK client, no buffering. With {@code lying}, every read hands back its first byte changed.
 */
final class SdkTestReader implements ReaderUnderTest {

    private final String name;
    private final boolean lying;

    SdkTestReader(String name, boolean lying) {
        this.name = name;
        this.lying = lying;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String configuration() {
        return "a ranged GET per read on the SDK's sync client" + (lying ? ", first byte of each read changed" : "");
    }

    @Override
    public ReaderSession openSession(S3Target target) {
        S3Client s3 = S3Client.builder()
                .endpointOverride(target.endpoint())
                .region(Region.of(target.region()))
                .forcePathStyle(target.pathStyle())
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(target.accessKey(), target.secretKey())))
                .build();
        return new Session(s3, target.bucket());
    }

    private final class Session implements ReaderSession {
        private final S3Client s3;
        private final String bucket;

        Session(S3Client s3, String bucket) {
            this.s3 = s3;
            this.bucket = bucket;
        }

        void get(String key, long position, byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return;
            }
            ResponseBytes<GetObjectResponse> bytes = s3.getObjectAsBytes(request ->
                    request.bucket(bucket).key(key).range("bytes=" + position + "-" + (position + length - 1)));
            if (bytes.asByteArrayUnsafe().length != length) {
                throw new EOFException("short answer for " + key + " at " + position);
            }
            System.arraycopy(bytes.asByteArrayUnsafe(), 0, buffer, offset, length);
            if (lying) {
                buffer[offset] ^= 1;
            }
        }

        @Override
        public BenchmarkStream open(String key, long length, Optional<String> etag) {
            RangeStream stream = new RangeStream(key, length);
            return new BenchmarkStream() {
                @Override
                public int read(byte[] buffer, int offset, int count) throws IOException {
                    return stream.read(buffer, offset, count);
                }

                @Override
                public void seek(long position) {
                    stream.seek(position);
                }

                @Override
                public void readFully(long at, byte[] buffer, int offset, int count) throws IOException {
                    get(key, at, buffer, offset, count);
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public InputFile parquetFile(String key, long length, Optional<String> etag) {
            return new InputFile() {
                @Override
                public long getLength() {
                    return length;
                }

                @Override
                public SeekableInputStream newStream() {
                    return new RangeStream(key, length);
                }
            };
        }

        @Override
        public void close() {
            s3.close();
        }

        /** parquet-java's stream over ranged GETs. */
        private final class RangeStream extends SeekableInputStream {
            private final String key;
            private final long length;
            private long position;

            RangeStream(String key, long length) {
                this.key = key;
                this.length = length;
            }

            @Override
            public long getPos() {
                return position;
            }

            @Override
            public void seek(long newPosition) {
                position = newPosition;
            }

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) == -1 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] buffer, int offset, int count) throws IOException {
                if (position >= length) {
                    return -1;
                }
                int n = (int) Math.min(count, length - position);
                get(key, position, buffer, offset, n);
                position += n;
                return n;
            }

            @Override
            public void readFully(byte[] bytes) throws IOException {
                readFully(bytes, 0, bytes.length);
            }

            @Override
            public void readFully(byte[] bytes, int start, int count) throws IOException {
                if (position + count > length) {
                    throw new EOFException(key + ": " + count + " bytes at " + position + " of " + length);
                }
                get(key, position, bytes, start, count);
                position += count;
            }

            @Override
            public int read(ByteBuffer buffer) throws IOException {
                int count = (int) Math.min(buffer.remaining(), length - position);
                if (count <= 0) {
                    return buffer.hasRemaining() ? -1 : 0;
                }
                byte[] bytes = new byte[count];
                readFully(bytes);
                buffer.put(bytes);
                return count;
            }

            @Override
            public void readFully(ByteBuffer buffer) throws IOException {
                if (read(buffer) < 0 || buffer.hasRemaining()) {
                    throw new EOFException(key + ": end of object before the buffer was full");
                }
            }
        }
    }
}
