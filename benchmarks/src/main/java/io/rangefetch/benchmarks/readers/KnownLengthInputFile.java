package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * parquet-java's {@link InputFile} for an object whose length the engine knew before opening it, so that
 * asking for the length costs no request. Each {@link #newStream()} opens a new stream of the reader.
 */
final class KnownLengthInputFile implements InputFile {

    /** Opens the reader's stream, adapted to parquet-java. */
    @FunctionalInterface
    interface StreamOpener {
        SeekableInputStream open() throws IOException;
    }

    private final String location;
    private final long length;
    private final StreamOpener opener;

    KnownLengthInputFile(String location, long length, StreamOpener opener) {
        this.location = requireNonNull(location, "location is null");
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " for " + location);
        }
        this.length = length;
        this.opener = requireNonNull(opener, "opener is null");
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
        return opener.open();
    }

    @Override
    public String toString() {
        return location;
    }
}
