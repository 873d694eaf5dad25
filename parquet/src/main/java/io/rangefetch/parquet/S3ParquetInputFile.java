package io.rangefetch.parquet;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions;
import io.rangefetch.S3Location;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamFactory;
import java.io.IOException;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet file on S3 for parquet-java, read through Rangefetch streams from one {@link StreamFactory}. Its
 * streams implement parquet-java's vectored read with {@link SeekableS3InputStream#readVectored}, so a row
 * group's column chunks are fetched at once, coalesced and in parallel. No Hadoop is needed: open it with
 * {@code ParquetFileReader.open(file, ParquetReadOptions.builder(new PlainParquetConfiguration()).build())}.
 *
 * <p><b>Footer.</b> parquet-java asks for the length, then reads the footer's length and the footer from the
 * end of the file. When the length is not given, {@link #getLength()} learns it with one suffix GET of the
 * file's tail instead of a HEAD; the tail stays in the factory's cache, so the footer reads that follow cost
 * nothing more when the footer fits in it; {@link #newStream()} does the same, since parquet-java opens its
 * stream before it asks for the length. When the length and ETag are given, the first footer read fetches the
 * tail in the same way. Either way the file is pinned to the version that GET saw: every stream of this file reads
 * that ETag.
 *
 * <p>Thread-safe; each stream is for one reader thread at a time, as parquet-java uses them.
 */
public final class S3ParquetInputFile implements InputFile {
    /** Parquet's file trailer: the footer's length (4 bytes) and the magic "PAR1". */
    private static final int FOOTER_TRAILER_BYTES = 8;

    private final StreamFactory factory;
    private final S3Location location;
    private final OpenOptions options;
    private volatile OpenOptions learned;
    private final ColumnPrefetcher prefetcher;

    /** A file whose length and ETag are learned when first needed. */
    public S3ParquetInputFile(StreamFactory factory, S3Location location) {
        this(factory, location, OpenOptions.defaults());
    }

    /**
     * A file opened with {@code options}: a length and ETag from a listing or a table manifest save the request
     * that would learn them.
     */
    public S3ParquetInputFile(StreamFactory factory, S3Location location, OpenOptions options) {
        this.factory = requireNonNull(factory, "factory is null");
        this.location = requireNonNull(location, "location is null");
        this.options = requireNonNull(options, "options is null");
        // as far ahead as a sequential prefetch may go, and never more than a quarter of the shared cache
        this.prefetcher = new ColumnPrefetcher(location.toString(),
                Math.min(factory.config().prefetchMaxSize(), factory.config().cacheMaxMemory() / 4),
                ColumnHistory.of(factory));
        if (options.length().isPresent() && options.etag().isPresent()) {
            learned = options;
        }
    }

    public S3Location location() {
        return location;
    }

    @Override
    public long getLength() throws IOException {
        OpenOptions known = options.length().isPresent() ? options : knownOptions();
        return known.length().getAsLong();
    }

    /**
     * A stream pinned to the file's version. parquet-java opens a stream before it asks for the length, and its
     * first read is the footer's trailer: so the tail GET that learns length and ETag is sent here, once, and
     * that first read is served from the cached tail instead of sending a GET of its own.
     */
    @Override
    public SeekableInputStream newStream() throws IOException {
        SeekableS3InputStream stream = factory.open(location, knownOptions());
        prefetcher.onOpen(stream);
        return new S3ParquetStream(stream, prefetcher);
    }

    /** The options with the length and ETag the first tail read learned; sends that read once. */
    private OpenOptions knownOptions() throws IOException {
        OpenOptions known = learned;
        if (known != null) {
            return known;
        }
        synchronized (this) {
            if (learned == null) {
                try (SeekableS3InputStream stream = factory.open(location, options)) {
                    // The footer's length and magic: one suffix GET of the tail learns length and ETag, and
                    // caches the tail for the footer read that follows.
                    stream.readTail(new byte[FOOTER_TRAILER_BYTES], 0, FOOTER_TRAILER_BYTES);
                    String etag = stream.etag().orElseThrow(() -> new IOException(
                            "The first GET of " + location + " did not tell its ETag"));
                    learned = options.toBuilder().length(stream.length()).etag(etag).build();
                }
            }
            return learned;
        }
    }

    @Override
    public String toString() {
        return location.toString();
    }
}
