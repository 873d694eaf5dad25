package io.rangefetch.benchmarks.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * An object the benchmarks read, described by its generator's parameters so it can be written again, byte
 * for byte, whenever the server lacks it.
 */
public sealed interface GeneratedObject permits ParquetSpec, FilteredParquetSpec, TextSpec {

    /** The object's key in the benchmark bucket. */
    String key();

    /**
     * Names the generator version and every parameter. Stored in the object's user metadata: an object whose
     * marker differs was made by another generator and is written again.
     */
    String marker();

    /** About how many bytes {@link #writeTo} writes, for progress bars. */
    long approximateSize();

    /** Writes the object to {@code file}, reporting bytes written (approximately, for Parquet) as it goes. */
    void writeTo(Path file, LongConsumer progress) throws IOException;
}
