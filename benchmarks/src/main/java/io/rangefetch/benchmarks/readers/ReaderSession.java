package io.rangefetch.benchmarks.readers;

import java.io.IOException;
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
    BenchmarkStream open(String key, long length) throws IOException;

    /**
     * The object as parquet-java's {@link InputFile}, built the way this reader's users hand files to
     * parquet-java (for S3A, {@code HadoopInputFile}; for Iceberg, its stream behind parquet's adapter).
     */
    InputFile parquetFile(String key, long length) throws IOException;

    @Override
    void close() throws IOException;
}
