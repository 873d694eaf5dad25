package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.parquet.io.InputFile;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.s3.analyticsaccelerator.S3SdkObjectClient;
import software.amazon.s3.analyticsaccelerator.S3SeekableInputStream;
import software.amazon.s3.analyticsaccelerator.S3SeekableInputStreamConfiguration;
import software.amazon.s3.analyticsaccelerator.S3SeekableInputStreamFactory;
import software.amazon.s3.analyticsaccelerator.common.ObjectRange;
import software.amazon.s3.analyticsaccelerator.request.ObjectMetadata;
import software.amazon.s3.analyticsaccelerator.util.OpenStreamInformation;
import software.amazon.s3.analyticsaccelerator.util.S3URI;

/**
 * The AWS analytics accelerator library used directly, as its README sets it up: an
 * {@link S3SeekableInputStreamFactory} with {@link S3SeekableInputStreamConfiguration#DEFAULT} over an
 * {@link S3SdkObjectClient} on the CRT S3 client with {@code maxConcurrency(600)}.
 *
 * <p>The library takes an object's length only together with its ETag ({@link ObjectMetadata} requires both):
 * given both, as S3A passes them from a listing, it opens without a request; given the length alone it sends a
 * HEAD first. It picks its Parquet optimisations (footer and column prefetch) by the key's suffix
 * ({@code .parquet}). Its vectored read is native, and the Parquet file's stream hands parquet-java's vectored
 * reads to it.
 */
public final class AnalyticsAcceleratorReader implements ReaderUnderTest {

    /** What the library's README sets on the CRT client it builds. */
    static final int CRT_MAX_CONCURRENCY = 600;

    // The library hands each buffer back once the caller is done with it; heap buffers need nothing.
    private static final Consumer<ByteBuffer> NO_RELEASE = buffer -> {};

    @Override
    public String name() {
        return "Analytics Accelerator";
    }

    @Override
    public String configuration() {
        return "analyticsaccelerator-s3 1.3.1 (the same jar S3A's analytics stream runs on here):"
                + " S3SeekableInputStreamFactory with S3SeekableInputStreamConfiguration.DEFAULT over S3SdkObjectClient"
                + " on the CRT S3AsyncClient, maxConcurrency " + CRT_MAX_CONCURRENCY + " (endpoint, region,"
                + " path-style, static credentials set); length and ETag passed when the ETag is known, else it"
                + " HEADs; native readVectored, also for Parquet";
    }

    @Override
    public ReaderSession openSession(S3Target target) {
        requireNonNull(target, "target is null");
        S3AsyncClient crt = SdkClients.crtBuilder(target)
                .maxConcurrency(CRT_MAX_CONCURRENCY)
                .build();
        // closing the object client closes the CRT client it was given
        S3SdkObjectClient objectClient = new S3SdkObjectClient(crt);
        try {
            return new Session(
                    target,
                    objectClient,
                    new S3SeekableInputStreamFactory(objectClient, S3SeekableInputStreamConfiguration.DEFAULT));
        } catch (RuntimeException | Error e) {
            objectClient.close();
            throw e;
        }
    }

    private static final class Session implements ReaderSession {
        private final S3Target target;
        private final S3SdkObjectClient objectClient;
        private final S3SeekableInputStreamFactory factory;

        Session(S3Target target, S3SdkObjectClient objectClient, S3SeekableInputStreamFactory factory) {
            this.target = target;
            this.objectClient = objectClient;
            this.factory = factory;
        }

        @Override
        public BenchmarkStream open(String key, long length, Optional<String> etag) throws IOException {
            S3SeekableInputStream stream = openStream(key, length, etag);
            return new DelegatingBenchmarkStream(
                    stream,
                    stream::seek,
                    stream::readFully,
                    Optional.of((spans, allocate) -> readVectored(stream, spans, allocate)));
        }

        @Override
        public InputFile parquetFile(String key, long length, Optional<String> etag) {
            return new KnownLengthInputFile(target.uri(key), length, () -> {
                S3SeekableInputStream stream = openStream(key, length, etag);
                return new ParquetStreamAdapter(
                        stream,
                        stream::getPos,
                        stream::seek,
                        Optional.of((spans, allocate) -> readVectored(stream, spans, allocate)));
            });
        }

        private S3SeekableInputStream openStream(String key, long length, Optional<String> etag) throws IOException {
            requireNonNull(key, "key is null");
            requireNonNull(etag, "etag is null");
            OpenStreamInformation information = etag.map(tag -> OpenStreamInformation.builder()
                            .objectMetadata(ObjectMetadata.builder()
                                    .contentLength(length)
                                    .etag(tag)
                                    .build())
                            .build())
                    .orElse(OpenStreamInformation.DEFAULT);
            return factory.createStream(S3URI.of(target.bucket(), key), information);
        }

        @Override
        public void close() throws IOException {
            // the factory does not own the object client: it goes second, and takes the CRT client with it
            Closer.closeAll(factory, objectClient);
        }

        private static List<CompletableFuture<ByteBuffer>> readVectored(
                S3SeekableInputStream stream, List<Span> spans, IntFunction<ByteBuffer> allocate) throws IOException {
            PendingRanges<ObjectRange> pending = PendingRanges.of(spans, ObjectRange::new);
            stream.readVectored(pending.ranges(), allocate, NO_RELEASE);
            return pending.results();
        }
    }
}
