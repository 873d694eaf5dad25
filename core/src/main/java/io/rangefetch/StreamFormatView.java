package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.format.FormatPolicy.FormatStream;
import io.rangefetch.internal.events.FetchCause;
import io.rangefetch.internal.plan.TableKeys;
import io.rangefetch.internal.read.ObjectReader;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What a format policy sees of one stream: its object, and reads and prefetches that never wait. The policy sees
 * the location, the options and the configuration only as the format package's own types name them.
 */
final class StreamFormatView implements FormatStream {
    private final S3Location location;
    private final OpenOptions options;
    private final StreamConfig config;
    private final ObjectReader reader;
    private final Executor executor;
    private final ReadErrors errors;

    StreamFormatView(
            S3Location location, OpenOptions options, StreamConfig config, ObjectReader reader, Executor executor) {
        this.location = requireNonNull(location, "location is null");
        this.options = requireNonNull(options, "options is null");
        this.config = requireNonNull(config, "config is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.errors = new ReadErrors(location, () -> false);
    }

    @Override
    public String bucket() {
        return location.bucket();
    }

    @Override
    public String key() {
        return location.key();
    }

    @Override
    public String table() {
        return TableKeys.table(location.key());
    }

    @Override
    public String uri() {
        return location.toString();
    }

    @Override
    public OptionalLong splitEnd() {
        return options.splitEnd();
    }

    @Override
    public <T> T get(Setting<T> setting) {
        return config.get(setting);
    }

    @Override
    public Object readerIdentity() {
        return reader.identity();
    }

    @Override
    public OptionalLong knownLength() {
        long length = reader.knownLength();
        return length < 0 ? OptionalLong.empty() : OptionalLong.of(length);
    }

    @Override
    public Optional<String> etag() {
        return Optional.ofNullable(reader.knownEtag());
    }

    @Override
    public CompletableFuture<ByteBuffer> read(ByteRange range) {
        requireNonNull(range, "range is null");
        long length = reader.knownLength();
        if (length < 0 || reader.knownEtag() == null) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "The version of " + location + " is not known yet: nothing can be read for its format policy"));
        }
        if (range.end() > length || range.length() > Integer.MAX_VALUE) {
            return CompletableFuture.failedFuture(new EOFException(
                    "Cannot read " + range + " of " + location + " (length " + length + ") for its format policy"));
        }
        FileRange fileRange = FileRange.of(range.start(), (int) range.length());
        try {
            reader.readVectoredForFormat(objectLength ->
                    VectoredRanges.allocate(List.of(fileRange), ByteBuffer::allocate, buffer -> {}, errors));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return fileRange.data();
    }

    @Override
    public void prefetch(List<ByteRange> ranges) {
        requireNonNull(ranges, "ranges is null");
        ranges.forEach(range -> requireNonNull(range, "range is null"));
        reader.prefetch(ranges, FetchCause.FORMAT_PREDICTION);
    }

    @Override
    public Executor executor() {
        return executor;
    }

    @Override
    public void predictionWasted(long bytes) {
        reader.predictionWasted(bytes);
    }

    @Override
    public boolean predictionsAllowed() {
        return reader.predictionsAllowed();
    }
}
