package io.rangefetch.iceberg;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.S3Location;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.OptionalLong;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.metrics.MetricsContext;

/**
 * An Iceberg {@link InputFile} over one S3 object, read through a Rangefetch {@link StreamFactory}.
 *
 * <p>A length Iceberg knows (data, delete and manifest files) is handed to every stream, so opening sends no
 * HEAD. An unknown length is taken from what the factory learned of the object (the first GET of any stream
 * on it tells the length), and failing that learned by a GET, not a HEAD; once known it is kept here, so {@link #getLength()}
 * answers after every stream is closed. Like Iceberg's own input file, {@link #newStream()} sends no request: a
 * missing object surfaces as {@link NotFoundException} at the first read.
 *
 * <p>Thread-safe.
 */
final class RangefetchInputFile implements InputFile {
    private final String location;
    private final S3Location s3Location;
    private final StreamFactory factory;
    // what every stream of the file is opened with (the FileIO's SSE-C key), the length added when known
    private final OpenOptions base;
    private final MetricsContext metrics;
    // Never read: it keeps the FileIO that made this file reachable while this file or a stream of it is (a stream
    // holds its file), so the FileIO's lease on the shared factory cannot end by collection under an open stream.
    @SuppressWarnings("unused")
    private final RangefetchS3FileIO fileIO;

    private volatile long length;

    RangefetchInputFile(
            String location,
            S3Location s3Location,
            OptionalLong length,
            StreamFactory factory,
            OpenOptions base,
            MetricsContext metrics,
            RangefetchS3FileIO fileIO) {
        this.location = requireNonNull(location, "location is null");
        this.s3Location = requireNonNull(s3Location, "s3Location is null");
        this.factory = requireNonNull(factory, "factory is null");
        this.base = requireNonNull(base, "base is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.fileIO = requireNonNull(fileIO, "fileIO is null");
        this.length = requireNonNull(length, "length is null").orElse(-1);
    }

    @Override
    public long getLength() {
        long known = length;
        if (known >= 0) {
            return known;
        }
        try (SeekableS3InputStream stream = factory.open(s3Location, options())) {
            known = learnLength(stream);
        } catch (FileNotFoundException e) {
            throw RangefetchIcebergStream.notFound(location, e);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot learn the length of " + location + ": " + e.getMessage(), e);
        }
        length = known;
        return known;
    }

    /**
     * The length without a HEAD where a GET can tell it. A stream opened without a length answers from the
     * factory's learned metadata when any recent GET told it (no request at all). Otherwise Iceberg asks for the
     * length of a file it is about to read (a manifest list or metadata file read from its start, a Puffin or
     * columnar file from its footer), so one GET of the end it will read first learns the length and leaves
     * those bytes in the factory's cache for the read that follows, where a HEAD would cost the same round
     * trip and return nothing to read.
     */
    private long learnLength(SeekableS3InputStream stream) throws IOException {
        if (stream.etag().isEmpty()) {
            byte[] one = new byte[1];
            if (readFromTail(s3Location.key())) {
                stream.readTail(one, 0, 1);
            } else {
                try {
                    stream.readFully(0, one, 0, 1);
                } catch (EOFException empty) {
                    // an empty object: the GET still told its length
                }
            }
        }
        return stream.length();
    }

    private static boolean readFromTail(String key) {
        String name = key.toLowerCase(Locale.ROOT);
        return name.endsWith(".parquet")
                || name.endsWith(".orc")
                || name.endsWith(".puffin")
                || name.endsWith(".stats");
    }

    @Override
    public SeekableInputStream newStream() {
        return new RangefetchIcebergStream(location, factory.open(s3Location, options()), metrics, this::learned);
    }

    @Override
    public String location() {
        return location;
    }

    /**
     * Whether the object exists. A length Iceberg gave is not taken as proof (the object may have been deleted
     * since): this asks the factory, which answers from what a recent GET or HEAD told it, else sends one HEAD.
     */
    @Override
    public boolean exists() {
        try (SeekableS3InputStream stream = factory.open(s3Location, base)) {
            learned(stream.length());
            return true;
        } catch (FileNotFoundException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot tell whether " + location + " exists: " + e.getMessage(), e);
        }
    }

    private OpenOptions options() {
        long known = length;
        return known < 0 ? base : base.toBuilder().length(known).build();
    }

    /** Called by a stream of this file that has learned the length (so later streams and getLength use it). */
    void learned(long objectLength) {
        if (length < 0) {
            length = objectLength;
        }
    }

    @Override
    public String toString() {
        return location;
    }
}
