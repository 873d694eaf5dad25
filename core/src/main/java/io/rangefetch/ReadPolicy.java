package io.rangefetch;

import java.util.Optional;

/** A hint from the caller about how a stream will be read. */
public enum ReadPolicy {
    /** Rangefetch watches the reads and decides. */
    AUTO,
    /** Front to back: read ahead from the first read on, and fetch the start of an unknown-length object large. */
    SEQUENTIAL,
    /** Scattered reads: never prefetch, never fetch more than the minimum request around a read. */
    RANDOM,
    /** A columnar file (Parquet, ORC): scattered reads of large chunks; the format comes from the key's extension. */
    COLUMNAR,
    /** A Parquet file, whatever its key: the {@code parquet} format policy reads it (from rangefetch-parquet). */
    PARQUET,
    /** An ORC file, whatever its key: the {@code orc} format policy reads it. */
    ORC,
    /** Text (CSV, JSON lines, logs), whatever its key: the {@code text} policy reads it front to back. */
    TEXT;

    /** The format policy this hint names, if it names one: SEQUENTIAL reads as text does. */
    public Optional<String> formatName() {
        return switch (this) {
            case PARQUET -> Optional.of("parquet");
            case ORC -> Optional.of("orc");
            case TEXT, SEQUENTIAL -> Optional.of("text");
            case AUTO, RANDOM, COLUMNAR -> Optional.empty();
        };
    }
}
