package io.rangefetch.hadoop;

import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;
import static java.util.Objects.requireNonNull;

import io.rangefetch.StreamFactory;
import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.s3a.impl.streams.InputStreamType;
import org.apache.hadoop.fs.s3a.impl.streams.ObjectInputStream;
import org.apache.hadoop.fs.s3a.impl.streams.ObjectInputStreamCallbacks;
import org.apache.hadoop.fs.s3a.impl.streams.ObjectReadParameters;
import org.apache.hadoop.fs.statistics.IOStatistics;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The S3A input stream the stream factory ({@link RangefetchStreamFactory}, Hadoop 3.4.2 and later) opens: S3A's
 * {@link ObjectInputStream}, whose every read is {@link RangefetchFSInputStream}'s, the Hadoop stream contract over
 * Rangefetch streams that the other entry points share. What is S3A's seam here: the object and its options come
 * from S3A's read parameters, the stream's S3A callbacks are registered for the factory's GETs while it is open
 * ({@link StreamCallbacksS3Client}), and a close merges its statistics into the thread's IOStatistics context and
 * closes S3A's part of the stream.
 */
final class RangefetchObjectInputStream extends ObjectInputStream
        implements ByteBufferReadable, ByteBufferPositionedReadable, CanUnbuffer {
    private final RangefetchFSInputStream contract;
    // Never read: keeps the S3A factory that opened this stream reachable while the stream is, so that factory's
    // lease on the shared Rangefetch factory cannot end by collection under an open stream.
    @SuppressWarnings("unused")
    private final RangefetchStreamFactory opener;

    RangefetchObjectInputStream(
            ObjectReadParameters parameters,
            StreamFactory factory,
            StreamCallbacksS3Client requests,
            RangefetchStreamFactory opener)
            throws IOException {
        super(InputStreamType.Custom, parameters);
        requireNonNull(factory, "factory is null");
        requireNonNull(requests, "requests is null");
        this.opener = requireNonNull(opener, "opener is null");
        ObjectInputStreamCallbacks s3a = getCallbacks();
        StreamCallbacksS3Client.Sender callbacks = new StreamCallbacksS3Client.Sender() {
            @Override
            public GetObjectRequest.Builder newGetRequestBuilder(String key) {
                return s3a.newGetRequestBuilder(key);
            }

            @Override
            public ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest request) throws IOException {
                return s3a.getObject(request);
            }
        };
        String bucket = getBucket();
        String key = getKey();
        requests.register(bucket, key, callbacks);
        RangefetchFSInputStream.Binding binding = new RangefetchFSInputStream.Binding() {
            @Override
            public void released() {
                requests.unregister(bucket, key, callbacks);
            }

            @Override
            public void closed(RangefetchIOStatistics statistics) {
                mergeThreadIOStatistics(statistics.rangefetchOnly());
            }
        };
        try {
            this.contract = new RangefetchFSInputStream(
                    factory,
                    new S3Location(bucket, key),
                    getUri(),
                    getContentLength(),
                    OpenOptionsFromS3A.of(
                            getObjectAttributes(),
                            getContext().getInputPolicy(),
                            getContext().getChangeDetectionPolicy(),
                            factory.config().get(FORMAT_EXTENSIONS)),
                    String.valueOf(getInputPolicy()),
                    getS3AStreamStatistics(),
                    getContext().getStats(),
                    binding);
        } catch (RuntimeException e) {
            binding.released();
            throw e;
        }
    }

    @Override
    public int read() throws IOException {
        return contract.read();
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        return contract.read(buffer, offset, length);
    }

    @Override
    public int read(ByteBuffer buffer) throws IOException {
        return contract.read(buffer);
    }

    @Override
    public void seek(long position) throws IOException {
        contract.seek(position);
    }

    @Override
    public long getPos() {
        return contract.getPos();
    }

    @Override
    public boolean seekToNewSource(long targetPosition) {
        return contract.seekToNewSource(targetPosition);
    }

    @Override
    public int available() throws IOException {
        return contract.available();
    }

    @Override
    public long skip(long count) throws IOException {
        return contract.skip(count);
    }

    @Override
    public int read(long position, byte[] buffer, int offset, int length) throws IOException {
        return contract.read(position, buffer, offset, length);
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        contract.readFully(position, buffer, offset, length);
    }

    @Override
    public void readFully(long position, byte[] buffer) throws IOException {
        contract.readFully(position, buffer, 0, buffer.length);
    }

    @Override
    public int read(long position, ByteBuffer buffer) throws IOException {
        return contract.read(position, buffer);
    }

    @Override
    public void readFully(long position, ByteBuffer buffer) throws IOException {
        contract.readFully(position, buffer);
    }

    @Override
    public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
        contract.readVectored(ranges, allocate);
    }

    @Override
    public void readVectored(
            List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate, Consumer<ByteBuffer> release)
            throws IOException {
        contract.readVectored(ranges, allocate, release);
    }

    @Override
    public void unbuffer() {
        contract.unbuffer();
    }

    /** Closes the contract, then S3A's part of the stream (which hands its statistics on), once. */
    @Override
    public synchronized void close() throws IOException {
        if (!contract.isOpen()) {
            return;
        }
        try {
            contract.close();
        } finally {
            super.close();
        }
    }

    @Override
    protected boolean isStreamOpen() {
        return contract.isOpen();
    }

    @Override
    protected void abortInFinalizer() {
        contract.abandon();
    }

    @Override
    public boolean hasCapability(String capability) {
        return contract.hasCapability(capability) || super.hasCapability(capability);
    }

    /** S3A's statistics of this stream with Rangefetch's counts ({@code rangefetch_*}), live. */
    @Override
    public IOStatistics getIOStatistics() {
        return contract.getIOStatistics();
    }

    /** What the Rangefetch streams behind this one have cost and served, over unbuffer calls. */
    StreamStatistics rangefetchStatistics() {
        return contract.rangefetchStatistics();
    }

    @Override
    public String toString() {
        return contract.toString().replaceFirst("^RangefetchFSInputStream", "RangefetchObjectInputStream");
    }
}
