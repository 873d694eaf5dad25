package io.rangefetch.benchmarks.readers;

import java.io.IOException;
import java.util.Optional;
import org.apache.iceberg.io.FileIO;
import org.apache.parquet.io.InputFile;

/**
 * A reader's clients for one measured run. Thread-safe: the random workload opens streams from several
 * threads at once. Closing it releases every client, pool and cache it created.
 */
public interface ReaderSession extends AutoCloseable {

    /**
     * Opens {@code key}. Engines know an object's length from a listing or a table's manifests before they
     * open it, so the runner passes it; each reader uses it the way its integration would.
     */
    default BenchmarkStream open(String key, long length) throws IOException {
        return open(key, length, Optional.empty());
    }

    /**
     * Opens {@code key} knowing its ETag too, as S3 returns it (quoted), the way an engine does that took it
     * from a listing (Spark's file index holds S3A's listing statuses, which carry it). Readers that can use
     * an ETag do: the analytics accelerator, directly or under S3A, sends a HEAD to open an object whose
     * ETag it was not given; S3A's classic stream and Rangefetch pin the version with it.
     */
    BenchmarkStream open(String key, long length, Optional<String> etag) throws IOException;

    /**
     * The object as parquet-java's {@link InputFile}, built the way this reader's users hand files to
     * parquet-java (for S3A, {@code HadoopInputFile}; for Iceberg, its stream behind parquet's adapter).
     */
    default InputFile parquetFile(String key, long length) throws IOException {
        return parquetFile(key, length, Optional.empty());
    }

    /** {@link #parquetFile(String, long)} knowing the ETag, as {@link #open(String, long, Optional)}. */
    InputFile parquetFile(String key, long length, Optional<String> etag) throws IOException;

    /**
     * The session's Iceberg FileIO, which a workload opens tables with, as a catalog hands its FileIO to the
     * tables it loads; the session owns it. Only for readers that {@linkplain ReaderUnderTest#isIcebergFileIO()
     * are a FileIO}.
     */
    default FileIO icebergFileIO() {
        throw new UnsupportedOperationException(getClass().getName() + " is not an Iceberg FileIO");
    }

    /**
     * The session's Rangefetch factory, which workloads of Rangefetch's own features (listing) use; the session
     * owns it. Only for readers that {@linkplain ReaderUnderTest#isRangefetch() are Rangefetch's factory}.
     */
    default RangefetchAccess rangefetch() {
        throw new UnsupportedOperationException(getClass().getName() + " has no Rangefetch factory");
    }

    @Override
    void close() throws IOException;
}
