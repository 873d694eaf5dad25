package io.rangefetch;

/** A hint from the caller about how a stream will be read. */
public enum ReadPolicy {
    /** Rangefetch watches the reads and decides. */
    AUTO,
    /** Front to back: read ahead from the first read on, and fetch the start of an unknown-length object large. */
    SEQUENTIAL,
    /** Scattered reads: never prefetch, never fetch more than the minimum request around a read. */
    RANDOM,
    /** A columnar file (Parquet, ORC): scattered reads of large chunks. */
    COLUMNAR
}
