package io.rangefetch.parquet;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions;
import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;
import java.io.IOException;
import java.util.Optional;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet file on S3 for parquet-java, read through Rangefetch streams from one {@link StreamFactory}. Its
 * streams implement parquet-java's vectored read with {@link SeekableS3InputStream#readVectored}, so a row
 * group's column chunks are fetched at once, coalesced and in parallel. No Hadoop is needed: open it with
 * {@code ParquetFileReader.open(file, ParquetReadOptions.builder(new PlainParquetConfiguration()).build())}.
 *
 * <p>Its streams are read by the {@code parquet} format policy whatever the key ({@link ReadPolicy#PARQUET}, unless
 * the options name another policy): opening one fetches the file's tail, footer included, in the GET that also
 * learns the length and ETag, and the column chunks a reader reads bring the ones it will read next (see
 * {@link ParquetFormatPolicy}). parquet-java opens its stream, then asks for the length: the length comes from
 * that stream's open fetch, so open plus footer costs one GET and no HEAD. Every stream of this file is pinned to
 * the version the first one saw.
 *
 * <p>Thread-safe; each stream is for one reader thread at a time, as parquet-java uses them.
 */
public final class S3ParquetInputFile implements InputFile {
    /** Parquet's file trailer: the footer's length (4 bytes) and the magic "PAR1". */
    private static final int FOOTER_TRAILER_BYTES = 8;

    private final StreamFactory factory;
    private final S3Location location;
    private final OpenOptions options;
    // The options with the length and ETag, once a stream learned them.
    private volatile OpenOptions learned;
    // The last stream opened before they were known: its open fetch is learning them.
    private volatile SeekableS3InputStream learning;

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
        requireNonNull(options, "options is null");
        ReadPolicy hint = options.readPolicy();
        this.options = hint == ReadPolicy.AUTO || hint == ReadPolicy.COLUMNAR
                ? options.toBuilder().readPolicy(ReadPolicy.PARQUET).build()
                : options;
        if (options.length().isPresent() && options.etag().isPresent()) {
            learned = this.options;
        }
    }

    public S3Location location() {
        return location;
    }

    /**
     * The length: given, or learned by a stream of this file, or (before any stream) by one suffix GET of the
     * tail, which stays cached for the footer read that follows. Never a HEAD.
     */
    @Override
    public long getLength() throws IOException {
        if (options.length().isPresent()) {
            return options.length().getAsLong();
        }
        Optional<OpenOptions> known = knownOptions();
        if (known.isPresent()) {
            return known.get().length().getAsLong();
        }
        SeekableS3InputStream opened = learning;
        if (opened != null) {
            long length = opened.length(); // waits for its open fetch, which learns the length: no HEAD
            knownOptions();
            return length;
        }
        return learnWithTailRead().length().getAsLong();
    }

    /**
     * A stream pinned to the file's version. parquet-java opens a stream before it asks for the length and reads
     * the footer first: the stream's open fetch is the GET that learns length and ETag and brings the footer.
     */
    @Override
    public SeekableInputStream newStream() throws IOException {
        Optional<OpenOptions> known = knownOptions();
        SeekableS3InputStream stream = factory.open(location, known.orElse(options));
        if (known.isEmpty()) {
            learning = stream;
        }
        return new S3ParquetStream(stream, () -> closed(stream));
    }

    /**
     * A stream of this file closed: what it learned stays with the file, and the file stops counting on it (a
     * closed stream sends nothing, so a length it never learned must be learned another way).
     */
    private void closed(SeekableS3InputStream stream) {
        if (learning != stream) {
            return;
        }
        try {
            knownOptions();
        } catch (IOException e) {
            // it learned nothing it can tell now
        }
        synchronized (this) {
            if (learning == stream) {
                learning = null;
            }
        }
    }

    /** The options with length and ETag, if given or learned by a stream of this file; sends nothing. */
    private Optional<OpenOptions> knownOptions() throws IOException {
        OpenOptions known = learned;
        if (known == null) {
            SeekableS3InputStream opened = learning;
            Optional<String> etag = opened == null ? Optional.empty() : opened.etag();
            if (etag.isPresent()) {
                known = remember(opened.length(), etag.get());
                learning = null; // learned: the stream need not be kept for it
            }
        }
        return Optional.ofNullable(known);
    }

    /**
     * Learns length and ETag before any stream of this file was opened, with one suffix GET of the tail (a
     * stream without format policy, so nothing is prefetched for a reader that is not there yet).
     */
    private OpenOptions learnWithTailRead() throws IOException {
        try (SeekableS3InputStream stream = factory.open(
                location, options.toBuilder().readPolicy(ReadPolicy.RANDOM).build())) {
            stream.readTail(new byte[FOOTER_TRAILER_BYTES], 0, FOOTER_TRAILER_BYTES);
            long length = stream.length();
            if (length == 0) {
                // empty: a 416 said so, with no ETag to pin; there are no bytes that could change under a reader
                return remember(0, null);
            }
            String etag = stream.etag()
                    .orElseThrow(() -> new IOException("The first GET of " + location + " did not tell its ETag"));
            return remember(length, etag);
        }
    }

    /** The first version learned wins: every later stream of this file is pinned to it. */
    private synchronized OpenOptions remember(long length, String etag) {
        if (learned == null) {
            OpenOptions.Builder builder = options.toBuilder().length(length);
            learned = (etag == null ? builder : builder.etag(etag))
                    .readPolicy(options.readPolicy())
                    .build();
        }
        return learned;
    }

    @Override
    public String toString() {
        return location.toString();
    }
}
